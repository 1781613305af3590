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

// schedulingKeys are the fields of scheduling.
var schedulingKeys = []string{"pod", "namespace", "chosen", "tied", "totals", "scores", "unscored"}

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
func parseScheduling(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, schedulingKeys)
	if err != nil {
		return nil, err
	}
	e := &SchedulingExpectation{}
	if e.Pod, e.Namespace, err = l.pod(n, fields, key); err != nil {
		return nil, err
	}
	if f, ok := fields["chosen"]; ok {
		if e.Chosen, err = l.objectName(f.val, key+".chosen"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["tied"]; ok {
		if e.Tied, err = l.nameList(f.val, key+".tied"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["totals"]; ok {
		if e.Totals, err = l.intMap(f.val, key+".totals"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["scores"]; ok {
		if e.Scores, err = l.scoreMap(f.val, key+".scores"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["unscored"]; ok {
		if e.Unscored, err = l.boolean(f.val, key+".unscored"); err != nil {
			return nil, err
		}
	}
	if e.Chosen == "" && e.Tied == nil && e.Totals == nil && e.Scores == nil && !e.Unscored {
		return nil, l.errAt(n, "scheduling: give at least one of chosen, tied, totals, scores, unscored")
	}
	return e, nil
}

// nameList reads a sequence of object names.
func (l *loader) nameList(n *yaml.Node, what string) ([]string, error) {
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, "%s: expected a list, got %s", what, describe(n))
	}
	out := []string{}
	for _, c := range n.Content {
		s, err := l.objectName(c, what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out, nil
}

// intMap reads a mapping of names to integers.
func (l *loader) intMap(n *yaml.Node, what string) (map[string]int64, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, "%s: expected a mapping, got %s", what, describe(n))
	}
	out := map[string]int64{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		x, err := l.integer(v, what+"."+flow.Printable(k.Value))
		if err != nil {
			return nil, err
		}
		out[flow.Printable(k.Value)] = x
	}
	return out, nil
}

// scoreMap reads node → {plugin: score}.
func (l *loader) scoreMap(n *yaml.Node, what string) (map[string]map[string]int64, error) {
	if n.Kind != yaml.MappingNode {
		return nil, l.errAt(n, "%s: expected a mapping of nodes, got %s", what, describe(n))
	}
	out := map[string]map[string]int64{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		m, err := l.intMap(v, what+"."+flow.Printable(k.Value))
		if err != nil {
			return nil, err
		}
		out[flow.Printable(k.Value)] = m
	}
	return out, nil
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
