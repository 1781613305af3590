package audit

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestAuditEventAppendJSON: appendJSON writes the bytes encoding/json's
// Marshal writes, for events with and without the optional parts and
// with strings that need escaping.
func TestAuditEventAppendJSON(t *testing.T) {
	at := time.Date(2026, 12, 1, 21, 0, 0, 123456789, time.FixedZone("x", 3600))
	base := func() *Event {
		return &Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata", AuditID: "a-1",
			Stage: StageRequestReceived, RequestURI: "/api/v1/namespaces/default/pods", Verb: "create",
			User: User{Username: "admin"}, RequestReceivedTimestamp: metav1.NewMicroTime(at), StageTimestamp: metav1.NewMicroTime(at)}
	}
	tricky := "q\"b\\s/<tag>&amp;\n\r\t\b\f\x01\x1f é \u2028\u2029 \xff end"
	tests := map[string]func(*Event){
		"minimal": func(*Event) {},
		"zero times": func(ev *Event) {
			ev.RequestReceivedTimestamp, ev.StageTimestamp = metav1.MicroTime{}, metav1.MicroTime{}
		},
		"complete": func(ev *Event) {
			ev.Stage = StageResponseComplete
			ev.User.Groups = []string{"system:masters", "system:authenticated"}
			ev.ImpersonatedUser = &User{Username: "student"}
			ev.SourceIPs = []string{"127.0.0.1"}
			ev.UserAgent = "kubectl/v1.37.2 (linux/amd64)"
			ev.ObjectRef = &ObjectRef{Resource: "pods", Namespace: "default", Name: "web", APIVersion: "v1"}
			ev.ResponseStatus = &metav1.Status{Code: 201}
			ev.Annotations = map[string]string{"z": "1", "authorization.k8s.io/decision": "allow", "a": tricky}
		},
		"empty object ref": func(ev *Event) { ev.ObjectRef = &ObjectRef{} },
		"error status": func(ev *Event) {
			ev.ResponseStatus = &metav1.Status{Status: metav1.StatusFailure, Message: tricky, Reason: metav1.StatusReasonForbidden, Code: 403,
				Details: &metav1.StatusDetails{Name: "web", Kind: "pods"}}
		},
		"zero code": func(ev *Event) { ev.ResponseStatus = &metav1.Status{} },
		"escaping": func(ev *Event) {
			ev.RequestURI, ev.UserAgent, ev.AuditID = tricky, tricky, tricky
			ev.User = User{Username: tricky, Groups: []string{tricky, ""}}
		},
	}
	for name, mutate := range tests {
		t.Run(name, func(t *testing.T) {
			ev := base()
			mutate(ev)
			want, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ev.appendJSON(nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
			}
		})
	}
}
