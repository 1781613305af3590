package scenarios

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// testEvent returns an Event in default about the object kind/name.
func testEvent(name, kind, object, reason, message string) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: name, Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{Kind: kind, Name: object, Namespace: "default"},
		Reason:         reason, Message: message,
	}
}

func TestParseEvent(t *testing.T) {
	checkParse(t, parseEvent, []parseCase[Expectation]{
		{name: "reason only", key: "event", src: "{object: web, reason: Scheduled}",
			want: &EventExpectation{Object: "web", Namespace: "default", Reason: "Scheduled"}},
		{name: "every field", key: "event", src: "{object: n1, kind: Node, namespace: kube-system, reason: NodeReady, message: ready}",
			want: &EventExpectation{Object: "n1", ObjectKind: "Node", Namespace: "kube-system", Reason: "NodeReady", Message: "ready"}},
		{name: "no object", key: "event", src: "{reason: Scheduled}", wantErr: `1:1: event: missing field "object"`},
		{name: "no reason", key: "event", src: "{object: web}", wantErr: `1:1: event: missing field "reason"`},
		{name: "message a number", key: "event", src: "{object: web, reason: X, message: 3}", wantErr: `1:35: event.message: expected a string, got a number (3)`},
	})
}

func TestEventProbe(t *testing.T) {
	objs := []runtime.Object{
		testEvent("e1", "Pod", "web", "Scheduled", "Successfully assigned default/web to node-2"),
		testEvent("e2", "Pod", "other", "Killing", "Stopping container web"),
		testEvent("e3", "Node", "web", "Killing", "a node of the same name"),
	}
	checkProbes(t, []probeCase{
		{name: "reason and message, ignoring case", e: &EventExpectation{Object: "web", Namespace: "default", Reason: "Scheduled", Message: "ASSIGNED default/web"}, objs: objs, wantOK: true},
		{name: "other reason", e: &EventExpectation{Object: "web", ObjectKind: "Pod", Namespace: "default", Reason: "Killing"}, objs: objs,
			wantGot: `events Scheduled "Successfully assigned default/web to node-2"`},
		{name: "of the kind given", e: &EventExpectation{Object: "web", ObjectKind: "Node", Namespace: "default", Reason: "Killing"}, objs: objs, wantOK: true},
		{name: "none", e: &EventExpectation{Object: "db", Namespace: "default", Reason: "Scheduled"}, objs: objs, wantGot: "no events for it"},
	})
}
