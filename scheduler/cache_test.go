package scheduler

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// snapshotState is what a fresh snapshot shows: node names in order and
// per node its pods and requested cpu.
type nodeState struct {
	Pods     []string
	MilliCPU int64
}

func snapshotOf(c *schedulerCache, snap *snapshot) ([]string, map[string]nodeState) {
	c.UpdateSnapshot(snap)
	var names []string
	for _, n := range snap.nodes {
		names = append(names, n.Name())
	}
	state := map[string]nodeState{}
	for name, n := range snap.infos {
		state[name] = nodeState{Pods: podNames(n), MilliCPU: n.Requested.MilliCPU}
	}
	return names, state
}

func TestCacheAssumeConfirmForget(t *testing.T) {
	c := newSchedulerCache()
	snap := newSnapshot()
	c.AddNode(makeNode("b", "4", "8Gi", 110))
	c.AddNode(makeNode("a", "4", "8Gi", 110))
	p := makePod("p", onNode("a"), withRequests("1", ""))

	steps := []struct {
		name      string
		do        func() error
		wantNodes []string
		want      map[string]nodeState
		assumed   bool
	}{
		{"assume on a", func() error { return c.AssumePod(p) }, []string{"a", "b"},
			map[string]nodeState{"a": {[]string{"p"}, 1000}, "b": {nil, 0}}, true},
		{"assume again fails", func() error {
			if err := c.AssumePod(p); err == nil {
				t.Errorf("AssumePod twice: no error")
			}
			return nil
		}, []string{"a", "b"}, map[string]nodeState{"a": {[]string{"p"}, 1000}, "b": {nil, 0}}, true},
		{"bound pod arrives: confirmed, counted once", func() error { c.AddPod(p.DeepCopy()); return nil }, []string{"a", "b"},
			map[string]nodeState{"a": {[]string{"p"}, 1000}, "b": {nil, 0}}, false},
		{"forget a confirmed pod fails", func() error {
			if err := c.ForgetPod(p); err == nil {
				t.Errorf("ForgetPod after confirmation: no error")
			}
			return nil
		}, []string{"a", "b"}, map[string]nodeState{"a": {[]string{"p"}, 1000}, "b": {nil, 0}}, false},
		{"bound pod deleted", func() error { c.RemovePod(p); return nil }, []string{"a", "b"},
			map[string]nodeState{"a": {nil, 0}, "b": {nil, 0}}, false},
		{"assume, then forget", func() error {
			if err := c.AssumePod(p); err != nil {
				return err
			}
			return c.ForgetPod(p)
		}, []string{"a", "b"}, map[string]nodeState{"a": {nil, 0}, "b": {nil, 0}}, false},
		{"assumed on a, bound elsewhere by someone else", func() error {
			if err := c.AssumePod(p); err != nil {
				return err
			}
			c.AddPod(makePod("p", onNode("b"), withRequests("1", "")))
			return nil
		}, []string{"a", "b"}, map[string]nodeState{"a": {nil, 0}, "b": {[]string{"p"}, 1000}}, false},
		{"node b deleted: its pod still counts, the node is gone from the list", func() error {
			c.RemoveNode(makeNode("b", "4", "8Gi", 110))
			return nil
		}, []string{"a"}, map[string]nodeState{"a": {nil, 0}, "b": {[]string{"p"}, 1000}}, false},
		{"its pod goes too: entry dropped", func() error {
			c.RemovePod(makePod("p", onNode("b")))
			return nil
		}, []string{"a"}, map[string]nodeState{"a": {nil, 0}}, false},
		{"pod arrives before its node", func() error {
			c.AddPod(makePod("q", onNode("c"), withRequests("2", "")))
			return nil
		}, []string{"a"}, map[string]nodeState{"a": {nil, 0}, "c": {[]string{"q"}, 2000}}, false},
		{"then the node", func() error {
			c.AddNode(makeNode("c", "4", "8Gi", 110))
			return nil
		}, []string{"a", "c"}, map[string]nodeState{"a": {nil, 0}, "c": {[]string{"q"}, 2000}}, false},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		names, state := snapshotOf(c, snap)
		if !slices.Equal(names, st.wantNodes) {
			t.Errorf("%s: nodes %v, want %v", st.name, names, st.wantNodes)
		}
		if len(state) != len(st.want) {
			t.Errorf("%s: snapshot %+v, want %+v", st.name, state, st.want)
		}
		for name, want := range st.want {
			if got := state[name]; !slices.Equal(got.Pods, want.Pods) || got.MilliCPU != want.MilliCPU {
				t.Errorf("%s: node %s = %+v, want %+v", st.name, name, got, want)
			}
		}
		if got := c.IsAssumed(p.UID); got != st.assumed {
			t.Errorf("%s: IsAssumed = %v, want %v", st.name, got, st.assumed)
		}
	}
}

// The snapshot is a copy: a NodeInfo handed to plugins does not change
// under them when the cache does.
func TestSnapshotIsACopy(t *testing.T) {
	c := newSchedulerCache()
	snap := newSnapshot()
	c.AddNode(makeNode("a", "4", "8Gi", 110))
	c.UpdateSnapshot(snap)
	before := snap.nodes[0]
	if err := c.AssumePod(makePod("p", onNode("a"), withRequests("1", ""))); err != nil {
		t.Fatal(err)
	}
	if len(before.Pods) != 0 || before.Requested.MilliCPU != 0 {
		t.Errorf("the snapshot's NodeInfo changed with the cache: %v pods, %dm", len(before.Pods), before.Requested.MilliCPU)
	}
	c.UpdateSnapshot(snap)
	if after := snap.nodes[0]; len(after.Pods) != 1 || after.Requested.MilliCPU != 1000 {
		t.Errorf("after UpdateSnapshot: %v pods, %dm; want 1 pod, 1000m", len(after.Pods), after.Requested.MilliCPU)
	}
	// Node updates show too.
	c.UpdateNode(makeNode("a", "8", "8Gi", 110, withLabel("x", "y")))
	c.UpdateSnapshot(snap)
	if got := snap.nodes[0]; got.Allocatable.MilliCPU != 8000 || got.Node().Labels["x"] != "y" || len(got.Pods) != 1 {
		t.Errorf("after a node update: allocatable %dm, labels %v, %d pods", got.Allocatable.MilliCPU, got.Node().Labels, len(got.Pods))
	}
}

func TestNodeChange(t *testing.T) {
	base := makeNode("n", "4", "8Gi", 110)
	tests := []struct {
		name   string
		change func(*corev1.Node)
		want   ActionType
	}{
		{"heartbeat only", func(n *corev1.Node) { n.Status.Conditions[0].Message = "still here"; n.ResourceVersion = "9" }, 0},
		{"allocatable", func(n *corev1.Node) { n.Status.Allocatable = makeNode("n", "8", "8Gi", 110).Status.Allocatable }, ActionUpdateNodeAllocatable},
		{"labels", func(n *corev1.Node) { n.Labels["zone"] = "a" }, ActionUpdateNodeLabel},
		{"taints", withTaint("k", "v", corev1.TaintEffectNoSchedule), ActionUpdateNodeTaint},
		{"cordon", cordoned(), ActionUpdateNodeTaint},
		{"labels and taints", func(n *corev1.Node) {
			n.Labels["zone"] = "a"
			n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		}, ActionUpdateNodeLabel | ActionUpdateNodeTaint},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := base.DeepCopy()
			tt.change(n)
			if got := nodeChange(base, n); got != tt.want {
				t.Errorf("nodeChange = %v, want %v", ClusterEvent{NodeResource, got}, ClusterEvent{NodeResource, tt.want})
			}
		})
	}
}
