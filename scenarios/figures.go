package scenarios

import "fmt"

// figure is one figure of an object's status an expectation may ask for
// (deployment, daemonSet, disruptionBudget, a replicaSets set): its name
// as the expectation's field writes it, and the value wanted, nil when
// it is not asked for.
type figure struct {
	name string
	want *int64
}

// wantedFigures lists the figures asked for, in fs's order: "ready 3".
func wantedFigures(fs []figure) []string {
	var out []string
	for _, f := range fs {
		if f.want != nil {
			out = append(out, fmt.Sprintf("%s %d", f.name, *f.want))
		}
	}
	return out
}

// figuresHold reports whether every figure of fs asked for is the one
// in got, which holds the object's figures by name.
func figuresHold(fs []figure, got map[string]int64) bool {
	for _, f := range fs {
		if f.want != nil && got[f.name] != *f.want {
			return false
		}
	}
	return true
}
