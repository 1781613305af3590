package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Preemption texts, as kube-scheduler's DefaultPreemption plugin words them.
const (
	preemptionNotHelpful      = "Preemption is not helpful for scheduling"
	preemptionNoVictims       = "No preemption victims found for incoming pod"
	preemptionPolicyNeverText = "not eligible due to preemptionPolicy=Never."
)

// preemptionMessage returns what kube-scheduler's default preemption would
// append to the FailedScheduling message of a pod that fits nowhere.
// kubesim does not evict pods; this is a dry run that only finds the
// words:
//
//   - a pod with preemptionPolicy Never may not preempt;
//   - nodes that rejected the pod for good (UnschedulableAndUnresolvable:
//     a taint, a selector, a request larger than the node) are not
//     looked at: "Preemption is not helpful for scheduling";
//   - on every other node, the pods of lower priority are the possible
//     victims. Without any: "No preemption victims found for incoming pod".
//     Otherwise the filters run again as if they were gone, and a node
//     still rejected reports that rejection.
//
// When removing victims would make room somewhere, kube-scheduler would
// preempt and kubesim says that it does not.
func (s *Scheduler) preemptionMessage(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, nodes []*NodeInfo, statuses map[string]*Status) string {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return "preemption: " + preemptionPolicyNeverText
	}
	prio := podPriority(pod)
	dryRun := map[string]*Status{}
	candidates := 0
	for _, n := range nodes {
		if statuses[n.Name()].Code() != Unschedulable {
			continue
		}
		var victims []*corev1.Pod
		for _, p := range n.Pods {
			if podPriority(p.Pod) < prio {
				victims = append(victims, p.Pod)
			}
		}
		if len(victims) == 0 {
			dryRun[n.Name()] = NewStatus(UnschedulableAndUnresolvable, preemptionNoVictims)
			continue
		}
		without := n.Clone()
		for _, v := range victims {
			without.RemovePod(v)
		}
		if st := s.fwk.runFilter(ctx, state, skip, pod, without); !st.IsSuccess() {
			dryRun[n.Name()] = st
			continue
		}
		candidates++
	}
	if candidates > 0 {
		return fmt.Sprintf("preemption: kubesim does not preempt; evicting lower-priority pods would make room on %d node(s).", candidates)
	}
	fe := &FitError{
		Pod:          pod,
		NumAllNodes:  len(nodes),
		NodeStatuses: dryRun,
		AbsentStatus: NewStatus(UnschedulableAndUnresolvable, preemptionNotHelpful),
	}
	return "preemption: " + fe.Error()
}

// podPriority is spec.priority, 0 when unset.
func podPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}
