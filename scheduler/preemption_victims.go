package scheduler

import (
	"context"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// selectVictimsOnNode finds the fewest pods of n to evict for pod to fit
// there, as upstream's DefaultPreemption.SelectVictimsOnNode:
//
//  1. every pod of lower priority is a possible victim (none: "No
//     preemption victims found for incoming pod"); they are all taken
//     off a copy of the node, and if the filters still reject the pod,
//     that rejection is the node's answer;
//  2. then, most important first (higher priority, then the one running
//     longer), each is put back if the pod still fits with it there:
//     first the victims whose eviction a PodDisruptionBudget forbids,
//     then the others. Those that cannot be put back are the victims.
//
// It returns the victims (most important first), how many of them
// violate a budget, and a nil status; or the node's rejection.
func (s *Scheduler) selectVictimsOnNode(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, n *NodeInfo, pdbs []*policyv1.PodDisruptionBudget) ([]*corev1.Pod, int, *Status) {
	prio := podPriority(pod)
	node := n.Clone()
	var potential []*PodInfo
	for _, p := range n.Pods {
		if podPriority(p.Pod) < prio {
			potential = append(potential, p)
			node.RemovePod(p.Pod)
		}
	}
	if len(potential) == 0 {
		return nil, 0, NewStatus(UnschedulableAndUnresolvable, preemptionNoVictims)
	}
	if st := s.fwk.runFilter(ctx, state, skip, pod, node); !st.IsSuccess() {
		return nil, 0, st
	}
	now := s.now()
	sort.SliceStable(potential, func(i, j int) bool { return moreImportantPod(potential[i].Pod, potential[j].Pod, now) })
	violating, nonViolating := splitByBudgets(potential, pdbs)
	var victims []*corev1.Pod
	reprieve := func(p *PodInfo) bool {
		node.AddPod(p)
		if s.fwk.runFilter(ctx, state, skip, pod, node).IsSuccess() {
			return true
		}
		node.RemovePod(p.Pod)
		victims = append(victims, p.Pod)
		return false
	}
	violations := 0
	for _, p := range violating {
		if !reprieve(p) {
			violations++
		}
	}
	for _, p := range nonViolating {
		reprieve(p)
	}
	if len(violating) > 0 && len(nonViolating) > 0 {
		sort.SliceStable(victims, func(i, j int) bool { return moreImportantPod(victims[i], victims[j], now) })
	}
	return victims, violations, nil
}

// moreImportantPod is upstream's MoreImportantPod: the higher priority,
// or at the same priority the one that started first.
func moreImportantPod(a, b *corev1.Pod, now time.Time) bool {
	if pa, pb := podPriority(a), podPriority(b); pa != pb {
		return pa > pb
	}
	return podStartTime(a, now).Before(podStartTime(b, now))
}

// podStartTime is status.startTime; a pod not started yet counts as
// starting now, as upstream's GetPodStartTime.
func podStartTime(p *corev1.Pod, now time.Time) time.Time {
	if p.Status.StartTime != nil {
		return p.Status.StartTime.Time
	}
	return now
}

// splitByBudgets splits pods (in order) into those whose eviction would
// take a PodDisruptionBudget below zero allowed disruptions and the
// others, as upstream's filterPodsWithPDBViolation: each budget of the
// pod's namespace whose selector matches the pod's labels (an empty
// selector matches nothing) gives up one disruption per pod, unless the
// pod is already among its disruptedPods.
func splitByBudgets(pods []*PodInfo, pdbs []*policyv1.PodDisruptionBudget) (violating, nonViolating []*PodInfo) {
	allowed := make([]int32, len(pdbs))
	for i, b := range pdbs {
		allowed[i] = b.Status.DisruptionsAllowed
	}
	for _, p := range pods {
		if violatesBudget(p.Pod, pdbs, allowed) {
			violating = append(violating, p)
		} else {
			nonViolating = append(nonViolating, p)
		}
	}
	return violating, nonViolating
}

// violatesBudget counts pod against the budgets that select it, and
// reports whether one of them went below zero.
func violatesBudget(pod *corev1.Pod, pdbs []*policyv1.PodDisruptionBudget, allowed []int32) bool {
	if len(pod.Labels) == 0 {
		return false
	}
	for i, b := range pdbs {
		if b.Namespace != pod.Namespace {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		if _, ok := b.Status.DisruptedPods[pod.Name]; ok {
			continue
		}
		allowed[i]--
		if allowed[i] < 0 {
			return true
		}
	}
	return false
}
