package controllers

import (
	"math"
	"sort"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podDeletionCostAnnotation ranks pods for scale-down: lower first.
const podDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// podsToDelete returns the diff pods of pods a ReplicaSet deletes first
// when it has diff too many, ranked as upstream's ActivePodsWithRanks
// (related are the active pods of the ReplicaSets of the same owner,
// which count towards "doubled up" on a node). It sorts pods in place.
func podsToDelete(pods, related []*corev1.Pod, diff int, now time.Time) []*corev1.Pod {
	if diff < len(pods) {
		onNode := map[string]int{}
		for _, p := range related {
			if isPodActive(p) {
				onNode[p.Spec.NodeName]++
			}
		}
		r := rankedPods{pods: pods, rank: make([]int, len(pods)), now: now}
		for i, p := range pods {
			r.rank[i] = onNode[p.Spec.NodeName]
		}
		sort.Sort(r)
	}
	return pods[:diff]
}

// rankedPods sorts pods so that the one to delete first comes first.
type rankedPods struct {
	pods []*corev1.Pod
	rank []int // the active related pods on the pod's node
	now  time.Time
}

func (r rankedPods) Len() int { return len(r.pods) }
func (r rankedPods) Swap(i, j int) {
	r.pods[i], r.pods[j] = r.pods[j], r.pods[i]
	r.rank[i], r.rank[j] = r.rank[j], r.rank[i]
}

var phaseOrder = map[corev1.PodPhase]int{corev1.PodPending: 0, corev1.PodUnknown: 1, corev1.PodRunning: 2}

// Less says pod i goes before pod j, by upstream's rules in order:
// unassigned first; Pending, then Unknown, then Running; not ready
// first; lower pod-deletion-cost; more active related pods on the same
// node; ready for less time (on a logarithmic scale); more container
// restarts; created later (logarithmic scale); then by UID.
func (r rankedPods) Less(i, j int) bool {
	a, b := r.pods[i], r.pods[j]
	if a.Spec.NodeName != b.Spec.NodeName && (a.Spec.NodeName == "" || b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if phaseOrder[a.Status.Phase] != phaseOrder[b.Status.Phase] {
		return phaseOrder[a.Status.Phase] < phaseOrder[b.Status.Phase]
	}
	if isPodReady(a) != isPodReady(b) {
		return !isPodReady(a)
	}
	if ca, cb := deletionCost(a), deletionCost(b); ca != cb {
		return ca < cb
	}
	if r.rank[i] != r.rank[j] {
		return r.rank[i] > r.rank[j]
	}
	if isPodReady(a) && isPodReady(b) {
		ta, tb := podReadyCondition(a).LastTransitionTime.Time, podReadyCondition(b).LastTransitionTime.Time
		if !ta.Equal(tb) {
			return r.newerFirst(ta, tb, a, b)
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	ta, tb := a.CreationTimestamp.Time, b.CreationTimestamp.Time
	if !ta.Equal(tb) {
		return r.newerFirst(ta, tb, a, b)
	}
	return false
}

// newerFirst orders by time, the zero time first, then the later; times
// in the same power-of-two bucket of age count as equal and fall back
// to the UID, as upstream's logarithmic scale-down.
func (r rankedPods) newerFirst(ta, tb time.Time, a, b *corev1.Pod) bool {
	if ta.IsZero() || tb.IsZero() {
		return ta.IsZero()
	}
	if d := logBucket(r.now.Sub(ta)) - logBucket(r.now.Sub(tb)); d != 0 {
		return d < 0
	}
	return a.UID < b.UID
}

func logBucket(age time.Duration) int64 {
	if age <= 0 {
		return -1
	}
	return int64(math.Log2(float64(age)))
}

func deletionCost(p *corev1.Pod) int32 {
	v, err := strconv.ParseInt(p.Annotations[podDeletionCostAnnotation], 10, 32)
	if err != nil {
		return 0
	}
	return int32(v)
}

// maxRestarts is the highest restart count of the pod's containers.
func maxRestarts(p *corev1.Pod) int32 {
	var most int32
	for _, s := range p.Status.ContainerStatuses {
		most = max(most, s.RestartCount)
	}
	return most
}
