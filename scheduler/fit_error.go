package scheduler

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// ErrNoNodesAvailable is the scheduling error when the cluster has no
// nodes at all (kube-scheduler's wording).
var ErrNoNodesAvailable = errors.New("no nodes available to schedule pods")

// FitError says why a pod fits on none of the nodes. Its Error is the text
// of the FailedScheduling event and of the PodScheduled condition.
type FitError struct {
	Pod *corev1.Pod
	// NumAllNodes is how many nodes the cluster has.
	NumAllNodes int
	// NodeStatuses holds the rejection of each node that was looked at.
	NodeStatuses map[string]*Status
	// AbsentStatus, when set, stands for every node not in NodeStatuses
	// (a PreFilter rejection stands for all of them).
	AbsentStatus *Status
	// PreFilterMsg is the PreFilter rejection, if the pod was rejected
	// before any node was looked at.
	PreFilterMsg string
	// PostFilterMsg is what preemption said ("preemption: ...").
	PostFilterMsg string
}

// Error builds the message kube-scheduler prints:
//
//	0/<all nodes> nodes are available: <count> <reason>, <count> <reason>. <preemption>
//
// Each reason of each node counts once; the "<count> <reason>" strings are
// sorted as strings (so "10 ..." comes before "2 ..."). A PreFilter
// rejection replaces the list with its message.
func (f *FitError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "0/%d nodes are available:", f.NumAllNodes)
	if f.PreFilterMsg != "" {
		fmt.Fprintf(&b, " %s.", f.PreFilterMsg)
	} else if list := reasonHistogram(f.NumAllNodes, f.NodeStatuses, f.AbsentStatus); len(list) > 0 {
		fmt.Fprintf(&b, " %s.", strings.Join(list, ", "))
	}
	if f.PostFilterMsg != "" {
		fmt.Fprintf(&b, " %s", f.PostFilterMsg)
	}
	return b.String()
}

// reasonHistogram counts each reason over the nodes: those in statuses,
// plus absent for the nodes missing from it. It returns "<count> <reason>"
// strings, sorted.
func reasonHistogram(numAllNodes int, statuses map[string]*Status, absent *Status) []string {
	counts := map[string]int{}
	for _, s := range statuses {
		for _, r := range s.Reasons() {
			counts[r]++
		}
	}
	if missing := numAllNodes - len(statuses); missing > 0 {
		for _, r := range absent.Reasons() {
			counts[r] += missing
		}
	}
	out := make([]string, 0, len(counts))
	for r, n := range counts {
		out = append(out, fmt.Sprintf("%d %s", n, r))
	}
	sort.Strings(out)
	return out
}

// noteLengthLimit is the longest message an Event may carry.
const noteLengthLimit = 1024

// truncateMessage shortens a message to fit in an Event, marking the cut.
func truncateMessage(msg string) string {
	if len(msg) <= noteLengthLimit {
		return msg
	}
	const suffix = " ..."
	return msg[:noteLengthLimit-len(suffix)] + suffix
}
