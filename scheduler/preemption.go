package scheduler

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/internal/flow"
)

// Preemption texts, as kube-scheduler's DefaultPreemption plugin words them.
const (
	preemptionNotHelpful      = "Preemption is not helpful for scheduling"
	preemptionNoVictims       = "No preemption victims found for incoming pod"
	preemptionPolicyNeverText = "not eligible due to preemptionPolicy=Never."
	preemptionTerminatingText = "not eligible due to a terminating pod on the nominated node."
)

// DefaultPreemptionName is the PostFilter plugin that preempts.
const DefaultPreemptionName = "DefaultPreemption"

// preemption is what kube-scheduler's DefaultPreemption PostFilter
// decided for a pod that fits nowhere: the node to nominate and the
// victims to evict there, or why there is none.
type preemption struct {
	// msg is the PostFilter message the FailedScheduling text ends with
	// ("preemption: ...").
	msg string
	// chosen is the node picked (nil: none), candidates every node where
	// evicting would make room, in name order, and criterion the rule of
	// pickOneNodeForPreemption that settled the pick.
	chosen     *preemptionCandidate
	candidates []preemptionCandidate
	criterion  string
	// override: the pod's status.nominatedNodeName becomes chosen's node,
	// or is cleared when no node would do (upstream's nominating mode
	// Override); otherwise it stays as it is.
	override bool
}

// nominatedNode returns the node the pod is nominated to after the
// attempt, and whether that changes status.nominatedNodeName.
func (p *preemption) nominatedNode() (string, bool) {
	switch {
	case p == nil || !p.override:
		return "", false
	case p.chosen == nil:
		return "", true
	}
	return p.chosen.node, true
}

// preemptionCandidate is a node where evicting victims lets the pod fit.
type preemptionCandidate struct {
	node string
	// victims, most important first (MoreImportantPod order).
	victims []*corev1.Pod
	// pdbViolations counts the victims whose eviction a budget forbids.
	pdbViolations int
}

// postFilter runs kube-scheduler's DefaultPreemption on a pod that fits
// on none of nodes (statuses: each node's rejection; nil after a
// PreFilter rejection, which counts as unresolvable everywhere):
//
//   - a pod with preemptionPolicy Never may not preempt, nor one whose
//     nominated node still has a lower-priority pod terminating because
//     of a preemption (its earlier victims are on their way out);
//   - nodes rejected for good (UnschedulableAndUnresolvable: a taint, a
//     selector, a request larger than the node) are not looked at;
//   - on every other node, selectVictimsOnNode finds the fewest victims
//     (pickOneNodeForPreemption then chooses among the nodes).
//
// It changes nothing: preempt carries the decision out.
func (s *Scheduler) postFilter(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, nodes []*NodeInfo, statuses map[string]*Status) *preemption {
	if ok, msg := s.eligibleToPreempt(pod, statuses); !ok {
		return &preemption{msg: "preemption: " + msg}
	}
	pdbs := s.budgets()
	dryRun := map[string]*Status{}
	var candidates []preemptionCandidate
	for _, n := range nodes {
		if statuses[n.Name()].Code() != Unschedulable {
			continue
		}
		victims, violations, st := s.selectVictimsOnNode(ctx, state, skip, pod, n, pdbs)
		if !st.IsSuccess() {
			dryRun[n.Name()] = st
			continue
		}
		candidates = append(candidates, preemptionCandidate{node: n.Name(), victims: victims, pdbViolations: violations})
	}
	if len(candidates) == 0 {
		fe := &FitError{
			Pod:          pod,
			NumAllNodes:  len(nodes),
			NodeStatuses: dryRun,
			AbsentStatus: NewStatus(UnschedulableAndUnresolvable, preemptionNotHelpful),
		}
		return &preemption{msg: "preemption: " + fe.Error(), override: true}
	}
	best, criterion := pickOneNodeForPreemption(candidates, s.now)
	return &preemption{
		msg:        fmt.Sprintf("preemption: found a potential placement for pod on node %v, preempting %d victims", best.node, len(best.victims)),
		chosen:     best,
		candidates: candidates,
		criterion:  criterion,
		override:   true,
	}
}

// eligibleToPreempt is upstream's PodEligibleToPreemptOthers.
func (s *Scheduler) eligibleToPreempt(pod *corev1.Pod, statuses map[string]*Status) (bool, string) {
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy == corev1.PreemptNever {
		return false, preemptionPolicyNeverText
	}
	nominated := pod.Status.NominatedNodeName
	if nominated == "" || (statuses != nil && statuses[nominated].Code() == UnschedulableAndUnresolvable) {
		return true, ""
	}
	n := s.snap.infos[nominated]
	if n == nil {
		return true, ""
	}
	prio := podPriority(pod)
	for _, p := range n.Pods {
		if podPriority(p.Pod) < prio && terminatingByPreemption(p.Pod) {
			return false, preemptionTerminatingText
		}
	}
	return true, ""
}

// terminatingByPreemption reports whether p is being deleted because a
// scheduler preempted it (its DisruptionTarget condition says so).
func terminatingByPreemption(p *corev1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.DisruptionTarget {
			return c.Status == corev1.ConditionTrue && c.Reason == corev1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// budgets lists the PodDisruptionBudgets (none without the informer).
func (s *Scheduler) budgets() []*policyv1.PodDisruptionBudget {
	if s.pdbLister == nil {
		return nil
	}
	pdbs, err := s.pdbLister.List(labels.Everything())
	if err != nil {
		klog.Background().Error(err, "Listing PodDisruptionBudgets for preemption failed")
		return nil
	}
	return pdbs
}

// podPriority is spec.priority, 0 when unset.
func podPriority(p *corev1.Pod) int32 {
	if p.Spec.Priority != nil {
		return *p.Spec.Priority
	}
	return 0
}

// evidence is the preemption as the flow evidence shows it (nil when
// there was none, or no candidate).
func (p *preemption) evidence() *flow.PreemptionVerdict {
	if p == nil || len(p.candidates) == 0 {
		return nil
	}
	v := &flow.PreemptionVerdict{Rule: p.criterion}
	if p.chosen != nil {
		v.Node = p.chosen.node
	}
	for _, c := range p.candidates {
		fc := flow.PreemptionCandidate{Node: c.node, PDBViolations: c.pdbViolations}
		for _, victim := range c.victims {
			fc.Victims = append(fc.Victims, fmt.Sprintf("%s/%s (priority %d)", victim.Namespace, victim.Name, podPriority(victim)))
		}
		v.Candidates = append(v.Candidates, fc)
	}
	return v
}
