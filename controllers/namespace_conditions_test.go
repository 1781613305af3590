package controllers

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// conditionLine is "Status Reason: Message" of status's condition t.
func conditionLine(status *corev1.NamespaceStatus, t corev1.NamespaceConditionType) string {
	if c := findNamespaceCondition(status.Conditions, t); c != nil {
		return string(c.Status) + " " + c.Reason + ": " + c.Message
	}
	return "absent"
}

func TestNamespaceConditions(t *testing.T) {
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	var status corev1.NamespaceStatus
	var u namespaceConditions
	u.discoveryFailed(&discovery.ErrGroupDiscoveryFailed{Groups: map[schema.GroupVersion]error{{Group: "metrics.k8s.io", Version: "v1beta1"}: errors.New("503")}})
	u.deleteFailed(errors.New("b failed"))
	u.deleteFailed(errors.New("a failed"))
	u.contentTotals(contentLeft{
		remaining:  map[schema.GroupVersionResource]int{podsResource: 2, widgets: 1},
		finalizers: map[string]int{"example.com/hold": 1, "a.example.com/x": 2},
	})
	if !u.apply(&status) {
		t.Fatal("first apply reported no change")
	}
	for typ, want := range map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "True DiscoveryFailed: Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: 503",
		corev1.NamespaceDeletionGVParsingFailure: "False ParsedGroupVersions: All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "True ContentDeletionFailed: Failed to delete all resource types, 2 remaining: a failed, b failed",
		corev1.NamespaceContentRemaining:         "True SomeResourcesRemain: Some resources are remaining: pods. has 2 resource instances, widgets.example.com has 1 resource instances",
		corev1.NamespaceFinalizersRemaining:      "True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: a.example.com/x in 2 resource instances, example.com/hold in 1 resource instances",
	} {
		if got := conditionLine(&status, typ); got != want {
			t.Errorf("%s:\ngot  %s\nwant %s", typ, got, want)
		}
	}
	if n := len(status.Conditions); n != 5 {
		t.Errorf("%d conditions, want 5", n)
	}

	// The same state again changes nothing; once all is well each
	// condition turns False, with a new lastTransitionTime only where
	// the status changed.
	old := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	for i := range status.Conditions {
		status.Conditions[i].LastTransitionTime = old
	}
	again := namespaceConditions{set: u.set}
	if again.apply(&status) {
		t.Error("applying the same conditions reported a change")
	}
	var ok namespaceConditions
	if !ok.apply(&status) {
		t.Fatal("clearing the conditions reported no change")
	}
	if got, want := conditionLine(&status, corev1.NamespaceContentRemaining), "False ContentRemoved: All content successfully removed"; got != want {
		t.Errorf("ContentRemaining once empty: %s, want %s", got, want)
	}
	gv := findNamespaceCondition(status.Conditions, corev1.NamespaceDeletionGVParsingFailure)
	cr := findNamespaceCondition(status.Conditions, corev1.NamespaceContentRemaining)
	if !gv.LastTransitionTime.Equal(&old) || cr.LastTransitionTime.Equal(&old) {
		t.Errorf("lastTransitionTime: unchanged condition %v, changed one %v; want only the changed one moved", gv.LastTransitionTime, cr.LastTransitionTime)
	}
}
