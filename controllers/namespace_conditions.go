package controllers

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// namespaceConditionTypes are the conditions the namespace controller
// keeps on a namespace being deleted, in upstream's order.
var namespaceConditionTypes = []corev1.NamespaceConditionType{
	corev1.NamespaceDeletionDiscoveryFailure,
	corev1.NamespaceDeletionGVParsingFailure,
	corev1.NamespaceDeletionContentFailure,
	corev1.NamespaceContentRemaining,
	corev1.NamespaceFinalizersRemaining,
}

// namespaceConditionsOK are the reason and message of each condition when
// it is False (nothing wrong), upstream's words.
var namespaceConditionsOK = map[corev1.NamespaceConditionType][2]string{
	corev1.NamespaceDeletionDiscoveryFailure: {"ResourcesDiscovered", "All resources successfully discovered"},
	corev1.NamespaceDeletionGVParsingFailure: {"ParsedGroupVersions", "All legacy kube types successfully parsed"},
	corev1.NamespaceDeletionContentFailure:   {"ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	corev1.NamespaceContentRemaining:         {"ContentRemoved", "All content successfully removed"},
	corev1.NamespaceFinalizersRemaining:      {"ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// namespaceConditions gathers, during one sync, the conditions that are
// True (something failed or remains); apply writes all five, the others
// False (upstream's namespaceConditionUpdater).
type namespaceConditions struct {
	set           []corev1.NamespaceCondition
	deleteFailure []error
}

// setTrue adds condition t, True, with reason and message.
func (u *namespaceConditions) setTrue(t corev1.NamespaceConditionType, reason, message string) {
	u.set = append(u.set, corev1.NamespaceCondition{Type: t, Status: corev1.ConditionTrue,
		LastTransitionTime: metav1.Now(), Reason: reason, Message: message})
}

// discoveryFailed: discovery answered for some groups only (or none).
func (u *namespaceConditions) discoveryFailed(err error) {
	msg := err.Error()
	var failed *discovery.ErrGroupDiscoveryFailed
	if errors.As(err, &failed) {
		msg = fmt.Sprintf("Discovery failed for some groups, %d failing: %v", len(failed.Groups), err)
	}
	u.setTrue(corev1.NamespaceDeletionDiscoveryFailure, "DiscoveryFailed", msg)
}

// groupVersionFailed: a group version discovery listed did not parse.
func (u *namespaceConditions) groupVersionFailed(err error) {
	u.setTrue(corev1.NamespaceDeletionGVParsingFailure, "GroupVersionParsingFailed", err.Error())
}

// deleteFailed: deleting one resource's objects failed.
func (u *namespaceConditions) deleteFailed(err error) {
	u.deleteFailure = append(u.deleteFailure, err)
}

// contentTotals sets ContentRemaining and FinalizersRemaining from what
// is left.
func (u *namespaceConditions) contentTotals(left contentLeft) {
	if len(left.remaining) > 0 {
		u.setTrue(corev1.NamespaceContentRemaining, "SomeResourcesRemain",
			"Some resources are remaining: "+remainingResourcesMessage(left.remaining))
	}
	if len(left.finalizers) > 0 {
		var held []string
		for f, n := range left.finalizers {
			if n > 0 {
				held = append(held, fmt.Sprintf("%s in %d resource instances", f, n))
			}
		}
		sort.Strings(held)
		u.setTrue(corev1.NamespaceFinalizersRemaining, "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: "+strings.Join(held, ", "))
	}
}

// remainingResourcesMessage is upstream's "pods. has 2 resource
// instances, widgets.example.com has 1 resource instances" (resource,
// dot, group: the core group leaves the dot alone), sorted.
func remainingResourcesMessage(remaining map[schema.GroupVersionResource]int) string {
	var parts []string
	for gvr, n := range remaining {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s.%s has %d resource instances", gvr.Resource, gvr.Group, n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// apply writes the five conditions into status, those not set True as
// False with their OK reason; a condition's lastTransitionTime changes
// only with its status. It reports whether anything changed.
func (u *namespaceConditions) apply(status *corev1.NamespaceStatus) bool {
	if findNamespaceCondition(u.set, corev1.NamespaceDeletionContentFailure) == nil && len(u.deleteFailure) > 0 {
		msgs := make([]string, 0, len(u.deleteFailure))
		for _, e := range u.deleteFailure {
			msgs = append(msgs, e.Error())
		}
		sort.Strings(msgs)
		u.setTrue(corev1.NamespaceDeletionContentFailure, "ContentDeletionFailed",
			fmt.Sprintf("Failed to delete all resource types, %d remaining: %v", len(msgs), strings.Join(msgs, ", ")))
	}
	changed := false
	for _, t := range namespaceConditionTypes {
		want := findNamespaceCondition(u.set, t)
		if want == nil {
			ok := namespaceConditionsOK[t]
			want = &corev1.NamespaceCondition{Type: t, Status: corev1.ConditionFalse, LastTransitionTime: metav1.Now(), Reason: ok[0], Message: ok[1]}
		}
		have := findNamespaceCondition(status.Conditions, t)
		switch {
		case have == nil:
			status.Conditions = append(status.Conditions, *want)
			changed = true
		case have.Status != want.Status || have.Reason != want.Reason || have.Message != want.Message:
			if have.Status != want.Status {
				have.LastTransitionTime = metav1.Now()
			}
			have.Status, have.Reason, have.Message = want.Status, want.Reason, want.Message
			changed = true
		}
	}
	return changed
}

// findNamespaceCondition returns the condition of type t in conds, or nil.
func findNamespaceCondition(conds []corev1.NamespaceCondition, t corev1.NamespaceConditionType) *corev1.NamespaceCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}
