package registry_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestEventsV1: events.k8s.io/v1 and core/v1 serve the same events: one
// written in either reads in the other with upstream's conversion (note
// is message, regarding is involvedObject), events.k8s.io's stricter
// validation applies to its writes, and its field selectors use its
// names.
func TestEventsV1(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	v1, core := r.Store(registry.EventsV1), r.Store(registry.Events)
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e1", Namespace: "default"},
		EventTime:           metav1.NewMicroTime(time.Now()),
		ReportingController: "kubesim.io/test", ReportingInstance: "test-1", Action: "Testing",
		Reason: "Tested", Note: "a note", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
	}
	if _, err := v1.Create(ctx, "default", ev, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	got, err := core.Get(ctx, "default", "e1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := got.(*corev1.Event); c.Message != "a note" || c.InvolvedObject.Name != "p" || c.ReportingController != "kubesim.io/test" {
		t.Errorf("core/v1 reads message %q involvedObject %q reportingComponent %q", c.Message, c.InvolvedObject.Name, c.ReportingController)
	}
	old := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "e2", Namespace: "default"}, Message: "core", Reason: "Old",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "q"}, Type: corev1.EventTypeWarning}
	if _, err := core.Create(ctx, "default", old, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	sel := fields.OneTermEqualSelector("regarding.name", "q")
	list, err := v1.List(ctx, "default", &metainternalversion.ListOptions{FieldSelector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if items := list.(*eventsv1.EventList).Items; len(items) != 1 || items[0].Note != "core" || items[0].Regarding.Name != "q" {
		t.Errorf("events.k8s.io list by regarding.name=q: %+v, want e2 with its note", items)
	}
	// The peer names it core's Event: events.k8s.io is served by core's storage.
	noTime := ev.DeepCopy()
	noTime.Name, noTime.EventTime = "e3", metav1.MicroTime{}
	_, err = v1.Create(ctx, "default", noTime, nil, registry.Options{})
	wantStatus(t, err, 422, `Event "e3" is invalid: eventTime: Required value`)
}
