package scenarios

import (
	"context"
	"testing"
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
