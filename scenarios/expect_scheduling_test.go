package scenarios

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestParseScheduling(t *testing.T) {
	checkParse(t, parseScheduling, []parseCase[Expectation]{
		{name: "everything", key: "scheduling",
			src: "{pod: web, chosen: node-2, tied: [node-b, node-a], totals: {node-1: 421}, scores: {node-1: {NodeResourcesFit: 48}}, unscored: true}",
			want: &SchedulingExpectation{Pod: "web", Namespace: DefaultNamespace, Chosen: "node-2", Tied: []string{"node-a", "node-b"},
				Totals: map[string]int64{"node-1": 421}, Scores: map[string]map[string]int64{"node-1": {"NodeResourcesFit": 48}}, Unscored: true}},
		{name: "no tie", key: "scheduling", src: "{pod: web, tied: []}",
			want: &SchedulingExpectation{Pod: "web", Namespace: DefaultNamespace, Tied: []string{}}},
		{name: "nothing to check", key: "scheduling", src: "{pod: web}",
			wantErr: "1:1: scheduling: give at least one of chosen, tied, totals, scores, unscored"},
		{name: "score not a number", key: "scheduling", src: "{pod: web, scores: {node-1: {NodeResourcesFit: high}}}",
			wantErr: `1:48: scheduling.scores.node-1.NodeResourcesFit: expected an integer, got a string ("high")`},
		{name: "totals not a mapping", key: "scheduling", src: "{pod: web, totals: [1]}",
			wantErr: "1:20: scheduling.totals: expected a mapping, got a list"},
	})
}

// decision is a decision between node-1 and node-2 (node-2 chosen).
func decision(tied ...string) *flow.SchedulingDecision {
	return &flow.SchedulingDecision{Chosen: "node-2", Tied: tied, Nodes: []flow.NodeVerdict{
		{Node: "node-1", Feasible: true, Total: 421, Scores: []flow.PluginScore{{Plugin: "NodeResourcesFit", Score: 48, Weight: 1}}},
		{Node: "node-2", Feasible: true, Total: 463, Scores: []flow.PluginScore{{Plugin: "NodeResourcesFit", Score: 91, Weight: 1}}},
		{Node: "node-3", FailedPlugin: "TaintToleration"},
	}}
}

func TestSchedulingMismatch(t *testing.T) {
	tests := []struct {
		name string
		e    SchedulingExpectation
		d    *flow.SchedulingDecision
		want string // "" when it holds; else a part of the mismatch
	}{
		{"all as said", SchedulingExpectation{Chosen: "node-2", Tied: []string{}, Totals: map[string]int64{"node-1": 421, "node-2": 463},
			Scores: map[string]map[string]int64{"node-2": {"NodeResourcesFit": 91}}}, decision(), ""},
		{"another node chosen", SchedulingExpectation{Chosen: "node-1"}, decision(), "chosen node-2"},
		{"a total off by one", SchedulingExpectation{Totals: map[string]int64{"node-1": 420}}, decision(), "node-1 total 421"},
		{"a score off", SchedulingExpectation{Scores: map[string]map[string]int64{"node-1": {"NodeResourcesFit": 49}}}, decision(), "node-1 NodeResourcesFit 48"},
		{"a plugin that did not score", SchedulingExpectation{Scores: map[string]map[string]int64{"node-1": {"ImageLocality": 0}}}, decision(), "scored: false"},
		{"a filtered node has no total", SchedulingExpectation{Totals: map[string]int64{"node-3": 0}}, decision(), "node-3 total 0"},
		{"a tie where none was said", SchedulingExpectation{Tied: []string{}}, decision("node-1", "node-2"), "tied [node-1 node-2]"},
		{"the tie as said", SchedulingExpectation{Tied: []string{"node-1", "node-2"}}, decision("node-1", "node-2"), ""},
		{"scored, not unscored", SchedulingExpectation{Unscored: true}, decision(), "node-2 was scored"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.e.mismatch(tt.d)
			if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("mismatch = %q, want %q", got, tt.want)
			}
		})
	}
}
