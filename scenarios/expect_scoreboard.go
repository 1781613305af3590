package scenarios

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ScoreboardExpectation: in the step's watchCompare scoreboard, Client's
// line has every figure given: whether it had every change as a state of
// its own (SeesEvery), its requests (exactly, at least, at most), the
// connections it dialed (exactly, at least) and its answers that were
// unchanged (at least: the poller's). Narration that quotes a figure of the
// scoreboard states it here, so a run that says otherwise fails.
type ScoreboardExpectation struct {
	Client    string
	SeesEvery *bool
	// Counts are the counts given, by field name (requests,
	// requestsAtLeast, requestsAtMost, connections, connectionsAtLeast,
	// unchangedAtLeast).
	Counts map[string]int
}

var _ resultChecker = (*ScoreboardExpectation)(nil)

// scoreboardDoc is scoreboard as written.
type scoreboardDoc struct {
	Client             str      `yaml:"client" load:"required"`
	SeesEvery          *boolean `yaml:"seesEvery"`
	Requests           *integer `yaml:"requests"`
	RequestsAtLeast    *integer `yaml:"requestsAtLeast"`
	RequestsAtMost     *integer `yaml:"requestsAtMost"`
	Connections        *integer `yaml:"connections"`
	ConnectionsAtLeast *integer `yaml:"connectionsAtLeast"`
	UnchangedAtLeast   *integer `yaml:"unchangedAtLeast"`
}

// scoreboardCounts are the keys of scoreboard's counts, in the order
// messages list them.
var scoreboardCounts = docKeys[scoreboardDoc]()[2:]

func (e *ScoreboardExpectation) Kind() string { return "scoreboard" }
func (e *ScoreboardExpectation) String() string {
	var says []string
	if e.SeesEvery != nil {
		says = append(says, fmt.Sprintf("seesEvery %t", *e.SeesEvery))
	}
	for _, k := range scoreboardCounts {
		if v, ok := e.Counts[k]; ok {
			says = append(says, fmt.Sprintf("%s %d", k, v))
		}
	}
	return fmt.Sprintf("scoreboard of %s: %s", e.Client, strings.Join(says, ", "))
}

// parseScoreboard reads {client, seesEvery, requests, requestsAtLeast,
// requestsAtMost, connections, connectionsAtLeast, unchangedAtLeast}: a client (poll, longpoll or watch) and
// at least one figure.
func parseScoreboard(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[scoreboardDoc](n)
	if err != nil {
		return nil, err
	}
	e := &ScoreboardExpectation{Client: string(d.Client), Counts: map[string]int{}}
	if err := oneOf(valueOf(n, "client"), e.Client, compareClients); err != nil {
		return nil, err
	}
	if d.SeesEvery != nil {
		b := bool(*d.SeesEvery)
		e.SeesEvery = &b
	}
	counts := map[string]*integer{"requests": d.Requests, "requestsAtLeast": d.RequestsAtLeast, "requestsAtMost": d.RequestsAtMost,
		"connections": d.Connections, "connectionsAtLeast": d.ConnectionsAtLeast, "unchangedAtLeast": d.UnchangedAtLeast}
	for _, k := range scoreboardCounts {
		if v := counts[k]; v != nil {
			if *v < 0 {
				return nil, errAt(valueOf(n, k), "%d: a count is 0 or more", *v)
			}
			e.Counts[k] = int(*v)
		}
	}
	if e.SeesEvery == nil && len(e.Counts) == 0 {
		return nil, errAt(n, "give at least one of seesEvery, %s", strings.Join(scoreboardCounts, ", "))
	}
	return e, nil
}

// checkResult finds the client's line and compares its figures.
func (e *ScoreboardExpectation) checkResult(res *StepResult) (string, bool) {
	ev, ok := res.Evidence.(*WatchCompareEvidence)
	if !ok {
		return "no scoreboard (the step's action is not watchCompare)", false
	}
	var s *ClientScore
	for i := range ev.Clients {
		if ev.Clients[i].Client == e.Client {
			s = &ev.Clients[i]
		}
	}
	if s == nil {
		return fmt.Sprintf("no line for client %s", e.Client), false
	}
	var bad []string
	if e.SeesEvery != nil && s.SeesEvery() != *e.SeesEvery {
		bad = append(bad, fmt.Sprintf("seesEvery %t (%d of %d changes seen alone)", s.SeesEvery(), s.SeenAlone, len(s.Seen)))
	}
	for _, k := range scoreboardCounts {
		want, ok := e.Counts[k]
		if !ok {
			continue
		}
		name, got := "requests", s.Requests
		switch {
		case strings.HasPrefix(k, "connections"):
			name, got = "connections", s.Connections
		case strings.HasPrefix(k, "unchanged"):
			name, got = "unchanged", s.UnchangedAnswers
		}
		if countHolds(strings.TrimPrefix(k, name), got, want) {
			continue
		}
		bad = append(bad, fmt.Sprintf("%s %d", name, got))
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: %s", e.Client, strings.Join(bad, ", ")), false
	}
	return "", true
}

// countHolds compares got with want as bound says: "AtLeast", "AtMost" or ""
// (exactly).
func countHolds(bound string, got, want int) bool {
	switch bound {
	case "AtLeast":
		return got >= want
	case "AtMost":
		return got <= want
	}
	return got == want
}
