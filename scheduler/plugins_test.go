package scheduler

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// runFilter runs one filter plugin the way the framework does: PreFilter
// first (a Skip means the filter does not run and the node passes).
func runFilter(p FilterPlugin, pod *corev1.Pod, n *NodeInfo) *Status {
	ctx := context.Background()
	state := NewCycleState()
	if pf, ok := p.(PreFilterPlugin); ok {
		if st := pf.PreFilter(ctx, state, pod); st.IsSkip() {
			return nil
		} else if !st.IsSuccess() {
			return st
		}
	}
	return p.Filter(ctx, state, pod, n)
}

func TestFilterPlugins(t *testing.T) {
	node := makeNode("node-1", "4", "8Gi", 110)
	full := func(pods ...*corev1.Pod) *NodeInfo { return NewNodeInfo(node, pods...) }
	exists := corev1.TolerationOpExists
	tests := []struct {
		name        string
		plugin      FilterPlugin
		pod         *corev1.Pod
		node        *NodeInfo
		wantCode    Code
		wantReasons []string
	}{
		// NodeName
		{"NodeName/no name", &NodeName{}, makePod("p"), full(), Success, nil},
		{"NodeName/this node", &NodeName{}, makePod("p", onNode("node-1")), full(), Success, nil},
		{"NodeName/other node", &NodeName{}, makePod("p", onNode("node-2")), full(),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match the requested node name"}},

		// NodeUnschedulable
		{"NodeUnschedulable/schedulable", &NodeUnschedulable{}, makePod("p"), full(), Success, nil},
		{"NodeUnschedulable/cordoned", &NodeUnschedulable{}, makePod("p"), NewNodeInfo(makeNode("n", "4", "8Gi", 110, cordoned())),
			UnschedulableAndUnresolvable, []string{"node(s) were unschedulable"}},
		{"NodeUnschedulable/cordoned but tolerated", &NodeUnschedulable{},
			makePod("p", withToleration(corev1.Toleration{Key: corev1.TaintNodeUnschedulable, Operator: exists, Effect: corev1.TaintEffectNoSchedule})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, cordoned())), Success, nil},

		// TaintToleration
		{"TaintToleration/no taints", &TaintToleration{}, makePod("p"), full(), Success, nil},
		{"TaintToleration/NoSchedule", &TaintToleration{}, makePod("p"),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("node-role.kubernetes.io/control-plane", "", corev1.TaintEffectNoSchedule))),
			UnschedulableAndUnresolvable, []string{"node(s) had untolerated taint(s)"}},
		{"TaintToleration/NoExecute", &TaintToleration{}, makePod("p"),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("dedicated", "gpu", corev1.TaintEffectNoExecute))),
			UnschedulableAndUnresolvable, []string{"node(s) had untolerated taint(s)"}},
		{"TaintToleration/PreferNoSchedule does not filter", &TaintToleration{}, makePod("p"),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("dedicated", "gpu", corev1.TaintEffectPreferNoSchedule))), Success, nil},
		{"TaintToleration/tolerated by key and value", &TaintToleration{},
			makePod("p", withToleration(corev1.Toleration{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule))), Success, nil},
		{"TaintToleration/wrong value", &TaintToleration{},
			makePod("p", withToleration(corev1.Toleration{Key: "dedicated", Value: "cpu", Effect: corev1.TaintEffectNoSchedule})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule))),
			UnschedulableAndUnresolvable, []string{"node(s) had untolerated taint(s)"}},
		{"TaintToleration/wrong effect", &TaintToleration{},
			makePod("p", withToleration(corev1.Toleration{Key: "dedicated", Operator: exists, Effect: corev1.TaintEffectPreferNoSchedule})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("dedicated", "gpu", corev1.TaintEffectNoSchedule))),
			UnschedulableAndUnresolvable, []string{"node(s) had untolerated taint(s)"}},
		{"TaintToleration/empty key Exists tolerates all", &TaintToleration{},
			makePod("p", withToleration(corev1.Toleration{Operator: exists})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("a", "1", corev1.TaintEffectNoSchedule), withTaint("b", "", corev1.TaintEffectNoExecute))), Success, nil},
		{"TaintToleration/one of two tolerated", &TaintToleration{},
			makePod("p", withToleration(corev1.Toleration{Key: "a", Operator: exists})),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withTaint("a", "1", corev1.TaintEffectNoSchedule), withTaint("b", "", corev1.TaintEffectNoExecute))),
			UnschedulableAndUnresolvable, []string{"node(s) had untolerated taint(s)"}},

		// NodeAffinity
		{"NodeAffinity/nothing asked", &NodeAffinity{}, makePod("p"), full(), Success, nil},
		{"NodeAffinity/selector matches", &NodeAffinity{}, makePod("p", withNodeSelector("disk", "ssd")),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("disk", "ssd"))), Success, nil},
		{"NodeAffinity/selector does not match", &NodeAffinity{}, makePod("p", withNodeSelector("disk", "ssd")),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("disk", "hdd"))),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/required In matches", &NodeAffinity{}, makePod("p", withRequired(term(expr("zone", corev1.NodeSelectorOpIn, "a", "b")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("zone", "b"))), Success, nil},
		{"NodeAffinity/required NotIn", &NodeAffinity{}, makePod("p", withRequired(term(expr("zone", corev1.NodeSelectorOpNotIn, "b")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("zone", "b"))),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/required DoesNotExist", &NodeAffinity{}, makePod("p", withRequired(term(expr("gpu", corev1.NodeSelectorOpDoesNotExist)))),
			full(), Success, nil},
		{"NodeAffinity/required Gt", &NodeAffinity{}, makePod("p", withRequired(term(expr("cores", corev1.NodeSelectorOpGt, "8")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("cores", "16"))), Success, nil},
		{"NodeAffinity/required Lt fails", &NodeAffinity{}, makePod("p", withRequired(term(expr("cores", corev1.NodeSelectorOpLt, "8")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("cores", "16"))),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/terms are ORed", &NodeAffinity{},
			makePod("p", withRequired(term(expr("zone", corev1.NodeSelectorOpIn, "x")), term(expr("zone", corev1.NodeSelectorOpIn, "b")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("zone", "b"))), Success, nil},
		{"NodeAffinity/expressions in a term are ANDed", &NodeAffinity{},
			makePod("p", withRequired(term(expr("zone", corev1.NodeSelectorOpIn, "b"), expr("disk", corev1.NodeSelectorOpExists)))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("zone", "b"))),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/matchFields name", &NodeAffinity{},
			makePod("p", withRequired(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-1")}})),
			full(), Success, nil},
		{"NodeAffinity/matchFields other name", &NodeAffinity{},
			makePod("p", withRequired(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{expr("metadata.name", corev1.NodeSelectorOpIn, "node-2")}})),
			full(), UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/empty term matches nothing", &NodeAffinity{}, makePod("p", withRequired(corev1.NodeSelectorTerm{})),
			full(), UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},
		{"NodeAffinity/selector and affinity both needed", &NodeAffinity{},
			makePod("p", withNodeSelector("disk", "ssd"), withRequired(term(expr("zone", corev1.NodeSelectorOpIn, "b")))),
			NewNodeInfo(makeNode("n", "4", "8Gi", 110, withLabel("zone", "b"))),
			UnschedulableAndUnresolvable, []string{"node(s) didn't match Pod's node affinity/selector"}},

		// NodeResourcesFit
		{"Fit/fits", &NodeResourcesFit{}, makePod("p", withRequests("1", "1Gi")), full(makePod("a", withRequests("2", "4Gi"))), Success, nil},
		{"Fit/fits exactly", &NodeResourcesFit{}, makePod("p", withRequests("2", "4Gi")), full(makePod("a", withRequests("2", "4Gi"))), Success, nil},
		{"Fit/insufficient cpu", &NodeResourcesFit{}, makePod("p", withRequests("3", "1Gi")), full(makePod("a", withRequests("2", "1Gi"))),
			Unschedulable, []string{"Insufficient cpu"}},
		{"Fit/more cpu than the node has", &NodeResourcesFit{}, makePod("p", withRequests("100", "")), full(),
			UnschedulableAndUnresolvable, []string{"Insufficient cpu"}},
		{"Fit/insufficient memory", &NodeResourcesFit{}, makePod("p", withRequests("", "5Gi")), full(makePod("a", withRequests("", "4Gi"))),
			Unschedulable, []string{"Insufficient memory"}},
		{"Fit/cpu and memory, in that order", &NodeResourcesFit{}, makePod("p", withRequests("3", "5Gi")),
			full(makePod("a", withRequests("2", "4Gi"))), Unschedulable, []string{"Insufficient cpu", "Insufficient memory"}},
		{"Fit/too many pods", &NodeResourcesFit{}, makePod("p"),
			NewNodeInfo(makeNode("n", "4", "8Gi", 2), makePod("a"), makePod("b")), Unschedulable, []string{"Too many pods"}},
		{"Fit/too many pods and cpu", &NodeResourcesFit{}, makePod("p", withRequests("4", "")),
			NewNodeInfo(makeNode("n", "4", "8Gi", 1), makePod("a", withRequests("1", ""))), Unschedulable, []string{"Too many pods", "Insufficient cpu"}},
		{"Fit/no requests fit anywhere", &NodeResourcesFit{}, makePod("p"), full(makePod("a", withRequests("4", "8Gi"))), Success, nil},
		{"Fit/init container is the peak", &NodeResourcesFit{}, makePod("p", withRequests("1", ""), withInit("init", "3", "", false)),
			full(makePod("a", withRequests("2", ""))), Unschedulable, []string{"Insufficient cpu"}},
		{"Fit/init container below the containers", &NodeResourcesFit{}, makePod("p", withRequests("2", ""), withInit("init", "1", "", false)),
			full(makePod("a", withRequests("2", ""))), Success, nil},
		{"Fit/sidecar adds to the containers", &NodeResourcesFit{}, makePod("p", withRequests("2", ""), withInit("proxy", "1", "", true)),
			full(makePod("a", withRequests("2", ""))), Unschedulable, []string{"Insufficient cpu"}},
		{"Fit/existing pod's sidecar counts", &NodeResourcesFit{}, makePod("p", withRequests("2", "")),
			full(makePod("a", withRequests("1", ""), withInit("proxy", "1", "", true))), Success, nil},
		{"Fit/existing pod's sidecar counts and fills", &NodeResourcesFit{}, makePod("p", withRequests("2", "")),
			full(makePod("a", withRequests("1", ""), withInit("proxy", "1500m", "", true))), Unschedulable, []string{"Insufficient cpu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := runFilter(tt.plugin, tt.pod, tt.node)
			if got := st.Code(); got != tt.wantCode {
				t.Errorf("code = %v, want %v (status %v)", got, tt.wantCode, st)
			}
			if got := st.Reasons(); !slices.Equal(got, tt.wantReasons) {
				t.Errorf("reasons = %q, want %q", got, tt.wantReasons)
			}
		})
	}
}

func withRequired(terms ...corev1.NodeSelectorTerm) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms},
		}}
	}
}

func withPreferred(weight int32, t corev1.NodeSelectorTerm) podOpt {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		na := p.Spec.Affinity.NodeAffinity
		na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: t})
	}
}

func term(exprs ...corev1.NodeSelectorRequirement) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: exprs}
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

// scoreAll runs one score plugin over nodes as the framework does
// (PreScore, Score, NormalizeScore) and returns the normalized scores by
// node, or skipped=true when PreScore asked to be skipped.
func scoreAll(t *testing.T, p ScorePlugin, pod *corev1.Pod, nodes ...*NodeInfo) (raw, normalized []int64, skipped bool) {
	t.Helper()
	ctx := context.Background()
	state := NewCycleState()
	if ps, ok := p.(PreScorePlugin); ok {
		st := ps.PreScore(ctx, state, pod, nodes)
		if st.IsSkip() {
			return nil, nil, true
		}
		if !st.IsSuccess() {
			t.Fatalf("PreScore: %v", st)
		}
	}
	list := make([]NodeScore, len(nodes))
	for i, n := range nodes {
		s, st := p.Score(ctx, state, pod, n)
		if !st.IsSuccess() {
			t.Fatalf("Score(%s): %v", n.Name(), st)
		}
		list[i] = NodeScore{Name: n.Name(), Score: s}
		raw = append(raw, s)
	}
	if st := p.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", st)
	}
	for _, s := range list {
		normalized = append(normalized, s.Score)
	}
	return raw, normalized, false
}

func TestScorePlugins(t *testing.T) {
	n := func(name string, opts ...nodeOpt) *corev1.Node { return makeNode(name, "4", "8Gi", 110, opts...) }
	tests := []struct {
		name        string
		plugin      ScorePlugin
		pod         *corev1.Pod
		nodes       []*NodeInfo
		wantRaw     []int64
		wantScores  []int64
		wantSkipped bool
	}{
		{
			// cpu: (4000-1000)*100/4000 = 75; memory: (8-2)*100/8 = 75.
			name: "LeastAllocated/empty node", plugin: &NodeResourcesFit{},
			pod:     makePod("p", withRequests("1", "2Gi")),
			nodes:   []*NodeInfo{NewNodeInfo(n("a"))},
			wantRaw: []int64{75}, wantScores: []int64{75},
		},
		{
			// a: cpu (4000-3000)/4000 = 25, memory (8-4)/8 = 50 → 37.
			// b: cpu 75, memory 75 → 75.
			name: "LeastAllocated/prefers the emptier node", plugin: &NodeResourcesFit{},
			pod: makePod("p", withRequests("1", "2Gi")),
			nodes: []*NodeInfo{
				NewNodeInfo(n("a"), makePod("x", withRequests("2", "2Gi"))),
				NewNodeInfo(n("b")),
			},
			wantRaw: []int64{37, 75}, wantScores: []int64{37, 75},
		},
		{
			// Requests default to 100m and 200Mi when missing, for the pod
			// and the pods on the node: cpu (4000-200)*100/4000 = 95,
			// memory (8192Mi-400Mi)*100/8192Mi = 95.
			name: "LeastAllocated/missing requests count as defaults", plugin: &NodeResourcesFit{},
			pod:     makePod("p"),
			nodes:   []*NodeInfo{NewNodeInfo(n("a"), makePod("x"))},
			wantRaw: []int64{95}, wantScores: []int64{95},
		},
		{
			name: "LeastAllocated/over capacity scores 0", plugin: &NodeResourcesFit{},
			pod:     makePod("p", withRequests("8", "16Gi")),
			nodes:   []*NodeInfo{NewNodeInfo(n("a"))},
			wantRaw: []int64{0}, wantScores: []int64{0},
		},
		{
			// With the pod: cpu 1/4 = .25, memory 1/8 = .125, std .0625,
			// balance 93; without: 0 and 0, balance 100.
			// 50 + (50 + 93 - 100)/2 = 71.
			name: "BalancedAllocation/pod skews an empty node", plugin: &NodeResourcesBalancedAllocation{},
			pod:     makePod("p", withRequests("1", "1Gi")),
			nodes:   []*NodeInfo{NewNodeInfo(n("a"))},
			wantRaw: []int64{71}, wantScores: []int64{71},
		},
		{
			// Without: cpu 2/4 = .5, memory 1/8 = .125 → std .1875, 81.
			// With (+0 cpu, +3Gi): .5 and .5 → 100.
			// 50 + (50 + 100 - 81)/2 = 84.
			name: "BalancedAllocation/pod evens a node out", plugin: &NodeResourcesBalancedAllocation{},
			pod:     makePod("p", withRequests("", "3Gi")),
			nodes:   []*NodeInfo{NewNodeInfo(n("a"), makePod("x", withRequests("2", "1Gi")))},
			wantRaw: []int64{84}, wantScores: []int64{84},
		},
		{
			name: "BalancedAllocation/best-effort pod is not scored", plugin: &NodeResourcesBalancedAllocation{},
			pod:         makePod("p"),
			nodes:       []*NodeInfo{NewNodeInfo(n("a"))},
			wantSkipped: true,
		},
		{
			// Raw: intolerable PreferNoSchedule taints 0, 1, 2; reversed.
			name: "TaintToleration/fewer intolerable taints is better", plugin: &TaintToleration{},
			pod: makePod("p", withToleration(corev1.Toleration{Key: "tolerated", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule})),
			nodes: []*NodeInfo{
				NewNodeInfo(n("a", withTaint("tolerated", "", corev1.TaintEffectPreferNoSchedule))),
				NewNodeInfo(n("b", withTaint("x", "", corev1.TaintEffectPreferNoSchedule), withTaint("noschedule", "", corev1.TaintEffectNoSchedule))),
				NewNodeInfo(n("c", withTaint("x", "", corev1.TaintEffectPreferNoSchedule), withTaint("y", "", corev1.TaintEffectPreferNoSchedule))),
			},
			wantRaw: []int64{0, 1, 2}, wantScores: []int64{100, 50, 0},
		},
		{
			name: "TaintToleration/no taints anywhere", plugin: &TaintToleration{},
			pod:     makePod("p"),
			nodes:   []*NodeInfo{NewNodeInfo(n("a")), NewNodeInfo(n("b"))},
			wantRaw: []int64{0, 0}, wantScores: []int64{100, 100},
		},
		{
			// Raw: sums of matching weights 0, 20, 80 (60+20); scaled to
			// the best.
			name: "NodeAffinity/preferred weights", plugin: &NodeAffinity{},
			pod: makePod("p",
				withPreferred(20, term(expr("disk", corev1.NodeSelectorOpIn, "ssd"))),
				withPreferred(60, term(expr("zone", corev1.NodeSelectorOpIn, "a")))),
			nodes: []*NodeInfo{
				NewNodeInfo(n("a")),
				NewNodeInfo(n("b", withLabel("disk", "ssd"))),
				NewNodeInfo(n("c", withLabel("disk", "ssd"), withLabel("zone", "a"))),
			},
			wantRaw: []int64{0, 20, 80}, wantScores: []int64{0, 25, 100},
		},
		{
			name: "NodeAffinity/no preference is not scored", plugin: &NodeAffinity{},
			pod:         makePod("p", withNodeSelector("disk", "ssd")),
			nodes:       []*NodeInfo{NewNodeInfo(n("a"))},
			wantSkipped: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw, got, skipped := scoreAll(t, tt.plugin, tt.pod, tt.nodes...)
			if skipped != tt.wantSkipped {
				t.Fatalf("skipped = %v, want %v", skipped, tt.wantSkipped)
			}
			if !slices.Equal(raw, tt.wantRaw) {
				t.Errorf("raw scores = %v, want %v", raw, tt.wantRaw)
			}
			if !slices.Equal(got, tt.wantScores) {
				t.Errorf("normalized scores = %v, want %v", got, tt.wantScores)
			}
		})
	}
}
