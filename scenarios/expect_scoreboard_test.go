package scenarios

import (
	"strings"
	"testing"
)

func TestParseScoreboard(t *testing.T) {
	yes := true
	checkParse(t, parseScoreboard, []parseCase[Expectation]{
		{name: "every figure", key: "scoreboard", src: "{client: longpoll, seesEvery: true, requests: 7, requestsAtLeast: 2, requestsAtMost: 9, connections: 6, connectionsAtLeast: 5, unchangedAtLeast: 1}",
			want: &ScoreboardExpectation{Client: ClientLongPoll, SeesEvery: &yes, Counts: map[string]int{"requests": 7, "requestsAtLeast": 2, "requestsAtMost": 9, "connections": 6, "connectionsAtLeast": 5, "unchangedAtLeast": 1}}},
		{name: "no client", key: "scoreboard", src: "{requests: 1}", wantErr: `1:1: scoreboard: missing field "client"`},
		{name: "unknown client", key: "scoreboard", src: "{client: push, requests: 1}", wantErr: `1:10: scoreboard.client: "push" is not one of poll, longpoll, watch`},
		{name: "no figure", key: "scoreboard", src: "{client: watch}", wantErr: "1:1: scoreboard: give at least one of seesEvery, requests, requestsAtLeast, requestsAtMost, connections, connectionsAtLeast, unchangedAtLeast"},
		{name: "a negative count", key: "scoreboard", src: "{client: watch, requests: -1}", wantErr: "1:27: scoreboard.requests: -1: a count is 0 or more"},
		{name: "seesEvery not a boolean", key: "scoreboard", src: "{client: watch, seesEvery: all}", wantErr: `1:28: scoreboard.seesEvery: expected true or false, got a string ("all")`},
	})
}

func TestScoreboardCheck(t *testing.T) {
	res := &StepResult{Evidence: testEvidence()}
	yes, no := true, false
	for _, tc := range []struct {
		name string
		e    ScoreboardExpectation
		got  string // "" when it holds
	}{
		{"watch: one request, sees every change", ScoreboardExpectation{Client: ClientWatch, SeesEvery: &yes, Counts: map[string]int{"requests": 1, "connections": 1}}, ""},
		{"long-poll: bounds", ScoreboardExpectation{Client: ClientLongPoll, Counts: map[string]int{"requestsAtLeast": 4, "requestsAtMost": 4, "connectionsAtLeast": 3}}, ""},
		{"poll jumped over changes", ScoreboardExpectation{Client: ClientPoll, SeesEvery: &no}, ""},
		{"poll did not see every change", ScoreboardExpectation{Client: ClientPoll, SeesEvery: &yes}, "poll: seesEvery false (1 of 3 changes seen alone)"},
		{"too few requests", ScoreboardExpectation{Client: ClientPoll, Counts: map[string]int{"requestsAtLeast": 5}}, "poll: requests 4"},
		{"too many requests", ScoreboardExpectation{Client: ClientPoll, Counts: map[string]int{"requestsAtMost": 3}}, "poll: requests 4"},
		{"an unchanged answer", ScoreboardExpectation{Client: ClientPoll, Counts: map[string]int{"unchangedAtLeast": 1}}, ""},
		{"too few unchanged answers", ScoreboardExpectation{Client: ClientPoll, Counts: map[string]int{"unchangedAtLeast": 2}}, "poll: unchanged 1"},
		{"other connections", ScoreboardExpectation{Client: ClientLongPoll, Counts: map[string]int{"connections": 4, "connectionsAtLeast": 4}}, "longpoll: connections 3, connections 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.e.checkResult(res)
			if ok != (tc.got == "") || got != tc.got {
				t.Errorf("%s: got %q, %t; want %q", tc.e.String(), got, ok, tc.got)
			}
		})
	}
	e := &ScoreboardExpectation{Client: ClientWatch, Counts: map[string]int{"requests": 1}}
	if got, ok := e.checkResult(&StepResult{}); ok || !strings.Contains(got, "not watchCompare") {
		t.Errorf("without a scoreboard: %q, %t", got, ok)
	}
}
