package scenarios

import (
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

func TestParseEventMessage(t *testing.T) {
	checkParse(t, parseEventMessage, []parseCase[Expectation]{
		{name: "equals", key: "eventMessage", src: "{object: web, equals: Stopping container web}",
			want: &EventMessageExpectation{Object: "web", Namespace: "default", Equals: "Stopping container web"}},
		{name: "matches, every field", key: "eventMessage", src: `{object: big, kind: Pod, namespace: team, reason: FailedScheduling, matches: '^0/\d+ nodes are available'}`,
			want: &EventMessageExpectation{Object: "big", ObjectKind: "Pod", Namespace: "team", Reason: "FailedScheduling", Matches: regexp.MustCompile(`^0/\d+ nodes are available`)}},
		{name: "equals nothing", key: "eventMessage", src: "{object: web, equals: ''}",
			want: &EventMessageExpectation{Object: "web", Namespace: "default"}},
		{name: "neither", key: "eventMessage", src: "{object: web, reason: Killing}",
			wantErr: `1:1: eventMessage: give equals (the whole message) or matches (a regular expression)`},
		{name: "both", key: "eventMessage", src: "{object: web, equals: a, matches: a}", wantErr: `1:26: eventMessage: give equals or matches, not both`},
		{name: "bad regexp", key: "eventMessage", src: "{object: web, matches: '(a'}",
			wantErr: "1:24: eventMessage.matches: error parsing regexp: missing closing ): `(a`"},
		{name: "no object", key: "eventMessage", src: "{equals: a}", wantErr: `1:1: eventMessage: missing field "object"`},
		{name: "reason a list", key: "eventMessage", src: "{object: web, reason: [a], equals: a}", wantErr: `1:23: eventMessage.reason: expected a string, got a list`},
		{name: "unknown field", key: "eventMessage", src: "{object: web, message: a}",
			wantErr: `1:15: eventMessage: unknown field "message" (allowed: object, kind, namespace, reason, equals, matches)`},
	})
}

// TestEventMessageProbe: equals is the whole message, case and all;
// matches finds its expression anywhere unless anchored; reason and kind,
// when given, narrow the Events looked at.
func TestEventMessageProbe(t *testing.T) {
	const failed = "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
	objs := []runtime.Object{
		testEvent("e1", "Pod", "big", "FailedScheduling", failed),
		testEvent("e2", "Pod", "big", "Scheduled", "Successfully assigned default/big to node-big"),
		testEvent("e3", "Node", "big", "Starting", "Starting kubelet."),
	}
	msg := func(reason, equals, matches string) *EventMessageExpectation {
		e := &EventMessageExpectation{Object: "big", Namespace: "default", Reason: reason, Equals: equals}
		if matches != "" {
			e.Matches = regexp.MustCompile(matches)
		}
		return e
	}
	seen := `events FailedScheduling "` + failed + `", Scheduled "Successfully assigned default/big to node-big", Starting "Starting kubelet."`
	checkProbes(t, []probeCase{
		{name: "equal", e: msg("FailedScheduling", failed, ""), objs: objs, wantOK: true},
		{name: "equal, any reason", e: msg("", "Successfully assigned default/big to node-big", ""), objs: objs, wantOK: true},
		{name: "a part is not equal", e: msg("", "0/2 nodes are available", ""), objs: objs, wantGot: seen},
		{name: "case counts", e: msg("", "starting kubelet.", ""), objs: objs, wantGot: seen},
		{name: "matches the counts", e: msg("FailedScheduling", "", `^0/2 nodes are available: 2 Insufficient cpu\.`), objs: objs, wantOK: true},
		{name: "unanchored", e: msg("", "", `to node-\w+$`), objs: objs, wantOK: true},
		{name: "other counts", e: msg("FailedScheduling", "", `^0/3 `), objs: objs, wantGot: `events FailedScheduling "` + failed + `"`},
		{name: "of the kind given", e: &EventMessageExpectation{Object: "big", ObjectKind: "Node", Namespace: "default", Equals: "Starting kubelet."}, objs: objs, wantOK: true},
		{name: "no events", e: msg("", "x", ""), wantGot: "no events for it"},
	})
}

func TestEventMessageString(t *testing.T) {
	for _, tc := range []struct {
		e    *EventMessageExpectation
		want string
	}{
		{&EventMessageExpectation{Object: "web", Namespace: "default", Equals: "Stopping container web"}, `eventMessage for web equal to "Stopping container web"`},
		{&EventMessageExpectation{Object: "big", Namespace: "team", Reason: "FailedScheduling", Matches: regexp.MustCompile(`^0/\d+ `)}, `eventMessage for team/big (reason FailedScheduling) matching "^0/\\d+ "`},
	} {
		if got := tc.e.String(); got != tc.want || tc.e.Kind() != "eventMessage" {
			t.Errorf("%s %s, want eventMessage %s", tc.e.Kind(), got, tc.want)
		}
	}
}
