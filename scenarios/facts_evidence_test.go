package scenarios

import (
	"context"
	"testing"

	"github.com/kubesim/kubesim/internal/restfullab"
)

// TestEvidenceFacts: the facts read from the step's own evidence tell
// their value from it, and say what they saw instead when the step has
// none of theirs (then looking again would not help).
func TestEvidenceFacts(t *testing.T) {
	board := &WatchCompareEvidence{Clients: []ClientScore{
		{Client: ClientPoll, Requests: 12, Connections: 1},
		{Client: ClientLongPoll, Requests: 7, Connections: 6},
		{Client: ClientWatch, Requests: 1, Connections: 1},
	}}
	slow := &SlowWatchEvidence{Missed: []string{"41", "42"}}
	route := &restfullab.RouteRef{Method: "GET", Path: "/api/v1/namespaces/{namespace}/pods"}
	lab := &restfulEvidence{Dispatches: []*restfullab.Dispatch{
		{Router: restfullab.CurlyRouter, Route: route},
		{Router: restfullab.RouterJSR311, Err: &restfullab.ServiceError{Code: 404}},
	}}
	tests := []struct {
		name  string
		f     fact
		res   StepResult
		value string
		ok    bool
	}{
		{"watch requests", scoreboardFact{ClientWatch, "requests"}, StepResult{Evidence: board}, "1", true},
		{"long-poll requests", scoreboardFact{ClientLongPoll, "requests"}, StepResult{Evidence: board}, "7", true},
		{"long-poll connections", scoreboardFact{ClientLongPoll, "connections"}, StepResult{Evidence: board}, "6", true},
		{"no scoreboard", scoreboardFact{ClientWatch, "requests"}, StepResult{Status: 200}, "no scoreboard (the step's action is not watchCompare)", false},
		{"no line", scoreboardFact{ClientWatch, "requests"}, StepResult{Evidence: &WatchCompareEvidence{}}, "no line for client watch", false},
		{"missed", slowWatchMissedFact{}, StepResult{Evidence: slow}, "2", true},
		{"none missed", slowWatchMissedFact{}, StepResult{Evidence: &SlowWatchEvidence{}}, "0", true},
		{"route", restfulRouteFact{}, StepResult{Evidence: lab}, "GET /api/v1/namespaces/{namespace}/pods", true},
		{"CurlyRouter's route", restfulRouteFact{restfullab.CurlyRouter}, StepResult{Evidence: lab}, "GET /api/v1/namespaces/{namespace}/pods", true},
		{"no route", restfulRouteFact{restfullab.RouterJSR311}, StepResult{Evidence: lab}, "404", true},
		{"no dispatch", restfulRouteFact{}, StepResult{Status: 200}, "no restfulDispatch in this step", false},
		{"no slow watch", slowWatchMissedFact{}, StepResult{Evidence: board}, "no slowWatch in this step", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			value, ok, changed := tc.f.look(context.Background(), nil, &tc.res)
			if value != tc.value || ok != tc.ok || changed != nil {
				t.Errorf("look = %q, %t, %v; want %q, %t, nil", value, ok, changed, tc.value, tc.ok)
			}
		})
	}
}
