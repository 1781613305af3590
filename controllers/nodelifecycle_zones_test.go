package controllers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNodeZones: nodes are grouped into zones as upstream's GetZoneKey
// groups them: by region and zone, the deprecated failure-domain.beta
// labels winning over the topology.kubernetes.io ones, and every node
// without either in one zone.
func TestNodeZones(t *testing.T) {
	node := func(name string, labels map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
	}
	const betaZone, betaRegion = "failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region"
	nodes := []*corev1.Node{
		node("a1", map[string]string{corev1.LabelTopologyZone: "a"}),
		node("a2", map[string]string{betaZone: "a", corev1.LabelTopologyZone: "b"}),
		node("b1", map[string]string{corev1.LabelTopologyZone: "b", corev1.LabelTopologyRegion: "r"}),
		node("b2", map[string]string{corev1.LabelTopologyZone: "b", betaRegion: "r", corev1.LabelTopologyRegion: "s"}),
		node("none1", nil),
		node("none2", map[string]string{"other": "x"}),
	}
	c := &NodeLifecycleController{zoneStates: map[string]zoneState{}, zoneTainters: map[string]*taintingQueue{}}
	for _, n := range nodes {
		c.ensureZone(n)
	}
	if got := len(c.zoneStates); got != 3 {
		t.Errorf("%d zones, want 3 (a, r/b and none): %q", got, zoneNames(c.zoneStates))
	}
	if _, ok := c.zoneStates[""]; !ok {
		t.Errorf("no zone for the nodes without zone labels: %q", zoneNames(c.zoneStates))
	}
}

func zoneNames(m map[string]zoneState) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
