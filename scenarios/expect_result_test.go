package scenarios

import "testing"

func TestParseResultExpectations(t *testing.T) {
	checkParse(t, parseStatus, []parseCase[Expectation]{
		{name: "status", key: "status", src: "409", want: &StatusExpectation{Code: 409}},
		{name: "not a code", key: "status", src: "42", wantErr: `1:1: status: 42 is not an HTTP status code`},
	})
	checkParse(t, parseMessage, []parseCase[Expectation]{
		{name: "message", key: "message", src: "is forbidden", want: &MessageExpectation{Contains: "is forbidden"}},
		{name: "message a list", key: "message", src: "[a]", wantErr: `1:1: message: expected a string, got a list`},
	})
	checkParse(t, parseWatchEvents, []parseCase[Expectation]{
		{name: "events", key: "watchEvents", src: "[ADDED, MODIFIED]", want: &WatchEventsExpectation{Types: []string{"ADDED", "MODIFIED"}}},
		{name: "none", key: "watchEvents", src: "[]", want: &WatchEventsExpectation{Types: []string{}}},
		{name: "one, not a list", key: "watchEvents", src: "ADDED", wantErr: `1:1: watchEvents: expected a list, got a string ("ADDED")`},
	})
}

func TestCheckResult(t *testing.T) {
	res := &StepResult{Status: 403, Message: `pods "web" is forbidden: User "student" cannot delete resource "pods"`, Watch: []string{"ADDED", "ERROR"}}
	for _, tc := range []struct {
		e       resultChecker
		res     *StepResult
		wantOK  bool
		wantGot string
	}{
		{&StatusExpectation{Code: 403}, res, true, ""},
		{&StatusExpectation{Code: 200}, res, false, "status 403"},
		{&StatusExpectation{Code: 200}, &StepResult{}, false, "no HTTP status (the action made no request)"},
		{&MessageExpectation{Contains: "IS FORBIDDEN"}, res, true, ""},
		{&MessageExpectation{Contains: "not found"}, &StepResult{Message: "ok"}, false, `message "ok"`},
		{&WatchEventsExpectation{Types: []string{"ADDED", "ERROR"}}, res, true, ""},
		{&WatchEventsExpectation{Types: []string{"ADDED"}}, res, false, "watch events [ADDED ERROR]"},
		{&WatchEventsExpectation{Types: []string{}}, &StepResult{}, true, ""},
	} {
		got, ok := tc.e.checkResult(tc.res)
		if ok != tc.wantOK || got != tc.wantGot {
			t.Errorf("%s: checkResult = %q, %v; want %q, %v", tc.e, got, ok, tc.wantGot, tc.wantOK)
		}
	}
}

// TestExpectsResult: only status and message make a failed request the
// step's result.
func TestExpectsResult(t *testing.T) {
	for _, tc := range []struct {
		expect []Expectation
		want   bool
	}{
		{[]Expectation{&WatchEventsExpectation{}, &StatusExpectation{Code: 409}}, true},
		{[]Expectation{&MessageExpectation{Contains: "x"}}, true},
		{[]Expectation{&WatchEventsExpectation{}, &PodPhaseExpectation{}}, false},
		{nil, false},
	} {
		if got := expectsResult(&Step{Expect: tc.expect}); got != tc.want {
			t.Errorf("expectsResult(%v) = %v, want %v", tc.expect, got, tc.want)
		}
	}
}
