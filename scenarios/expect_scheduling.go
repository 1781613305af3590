package scenarios

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// SchedulingExpectation: the scheduler's last decision about the pod
// that chose a node (its stage 4 evidence, as the scheduler recorded
// it) has the given outcome. It lets narration that quotes scores be
// checked against the run: every field given must match; fields left
// out are not looked at.
type SchedulingExpectation struct {
	Pod, Namespace string
	// Chosen is the node the pod was bound to.
	Chosen string
	// Tied are the nodes that shared the highest total, by name (nil:
	// not checked; an empty list: no tie).
	Tied []string
	// Totals are weighted totals by node; Scores plugin scores (0-100,
	// before weights) by node and plugin.
	Totals map[string]int64
	Scores map[string]map[string]int64
	// Unscored says the only feasible node was not scored.
	Unscored bool
}

var _ prober = (*SchedulingExpectation)(nil)

// schedulingDoc is scheduling as written.
type schedulingDoc struct {
	podDoc   `yaml:",inline"`
	Chosen   *objectName                   `yaml:"chosen"`
	Tied     *[]objectName                 `yaml:"tied"`
	Totals   map[mapKey]integer            `yaml:"totals"`
	Scores   map[mapKey]map[mapKey]integer `yaml:"scores" expected:"a mapping of nodes"`
	Unscored *boolean                      `yaml:"unscored"`
}

func (e *SchedulingExpectation) Kind() string { return "scheduling" }
func (e *SchedulingExpectation) String() string {
	var parts []string
	if e.Chosen != "" {
		parts = append(parts, "chosen "+e.Chosen)
	}
	if e.Tied != nil {
		parts = append(parts, fmt.Sprintf("tied %v", e.Tied))
	}
	for _, n := range slices.Sorted(maps.Keys(e.Totals)) {
		parts = append(parts, fmt.Sprintf("%s total %d", n, e.Totals[n]))
	}
	for _, n := range slices.Sorted(maps.Keys(e.Scores)) {
		for _, pl := range slices.Sorted(maps.Keys(e.Scores[n])) {
			parts = append(parts, fmt.Sprintf("%s %s %d", n, pl, e.Scores[n][pl]))
		}
	}
	if e.Unscored {
		parts = append(parts, "not scored")
	}
	return fmt.Sprintf("scheduling of %s: %s", nsName(e.Namespace, e.Pod), strings.Join(parts, ", "))
}

// parseScheduling reads {pod, namespace, chosen, tied, totals, scores,
// unscored}; at least one of the outcome fields.
func parseScheduling(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[schedulingDoc](n)
	if err != nil {
		return nil, err
	}
	e := &SchedulingExpectation{Tied: sortedNames(d.Tied), Totals: int64Map(d.Totals), Unscored: d.Unscored.or(false)}
	e.Pod, e.Namespace = d.ref()
	if d.Chosen != nil {
		e.Chosen = string(*d.Chosen)
	}
	if d.Scores != nil {
		e.Scores = map[string]map[string]int64{}
		for node, scores := range d.Scores {
			e.Scores[string(node)] = int64Map(scores)
		}
	}
	if e.Chosen == "" && e.Tied == nil && e.Totals == nil && e.Scores == nil && !e.Unscored {
		return nil, errAt(n, "give at least one of chosen, tied, totals, scores, unscored")
	}
	return e, nil
}

// sortedNames returns the names names points to, sorted; nil if names
// is nil (a field not given).
func sortedNames(names *[]objectName) []string {
	if names == nil {
		return nil
	}
	out := []string{}
	for _, s := range *names {
		out = append(out, string(s))
	}
	sort.Strings(out)
	return out
}

// int64Map returns m (integers by name) as int64s; nil if m is nil.
func int64Map(m map[mapKey]integer) map[string]int64 {
	if m == nil {
		return nil
	}
	out := map[string]int64{}
	for k, v := range m {
		out[string(k)] = int64(v)
	}
	return out
}

// probe looks for the pod's last decision that chose a node among the
// flow events so far and compares it with every field given.
func (e *SchedulingExpectation) probe(_ context.Context, p *player) (string, bool, <-chan struct{}) {
	events, changed := p.snapshot()
	var d *flow.SchedulingDecision
	for _, ev := range events {
		if ev.Scheduling != nil && ev.Scheduling.Chosen != "" && ev.Object.Kind == "Pod" &&
			ev.Object.Namespace == e.Namespace && ev.Object.Name == e.Pod {
			d = ev.Scheduling
		}
	}
	if d == nil {
		return "no decision that chose a node", false, changed
	}
	if diff := e.mismatch(d); diff != "" {
		return diff, false, changed
	}
	return "", true, changed
}

// mismatch says how d differs from the expectation ("" when it does not).
func (e *SchedulingExpectation) mismatch(d *flow.SchedulingDecision) string {
	var diffs []string
	if e.Chosen != "" && d.Chosen != e.Chosen {
		diffs = append(diffs, "chosen "+d.Chosen)
	}
	if e.Tied != nil && !slices.Equal(append([]string{}, d.Tied...), e.Tied) {
		diffs = append(diffs, fmt.Sprintf("tied %v", d.Tied))
	}
	verdicts := map[string]flow.NodeVerdict{}
	for _, v := range d.Nodes {
		verdicts[v.Node] = v
	}
	for _, n := range slices.Sorted(maps.Keys(e.Totals)) {
		if v := verdicts[n]; len(v.Scores) == 0 || v.Total != e.Totals[n] {
			diffs = append(diffs, fmt.Sprintf("%s total %d", n, v.Total))
		}
	}
	for _, n := range slices.Sorted(maps.Keys(e.Scores)) {
		for _, pl := range slices.Sorted(maps.Keys(e.Scores[n])) {
			if got, ok := pluginScore(verdicts[n], pl); !ok || got != e.Scores[n][pl] {
				diffs = append(diffs, fmt.Sprintf("%s %s %d (scored: %v)", n, pl, got, ok))
			}
		}
	}
	if e.Unscored {
		if v := verdicts[d.Chosen]; len(v.Scores) != 0 {
			diffs = append(diffs, d.Chosen+" was scored")
		}
	}
	return strings.Join(diffs, ", ")
}

// pluginScore is the score plugin gave the node in v.
func pluginScore(v flow.NodeVerdict, plugin string) (int64, bool) {
	for _, s := range v.Scores {
		if s.Plugin == plugin {
			return s.Score, true
		}
	}
	return 0, false
}
