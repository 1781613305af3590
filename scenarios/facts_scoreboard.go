package scenarios

import (
	"context"
	"fmt"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// scoreboardFigures are the figures of a watchCompare client a question
// may ask about: the requests it sent and the connections it opened.
var scoreboardFigures = []string{"requests", "connections"}

// scoreboardFact is a figure of one client's line of the step's
// watchCompare scoreboard (as the scoreboard expectation reads it).
type scoreboardFact struct{ Client, Figure string }

func parseScoreboardFact(d *questionDoc, n *yaml.Node) (fact, error) {
	if d.Client == nil {
		return nil, errAt(n, "missing field \"client\" (one of %s)", joinComma(compareClients))
	}
	var f scoreboardFact
	var err error
	if f.Client, err = d.Client.oneOf(valueOf(n, "client"), "", compareClients); err != nil {
		return nil, err
	}
	if d.Figure == nil {
		return nil, errAt(n, "missing field \"figure\" (one of %s)", joinComma(scoreboardFigures))
	}
	f.Figure, err = d.Figure.oneOf(valueOf(n, "figure"), "", scoreboardFigures)
	return f, err
}

func (f scoreboardFact) about() flow.Text {
	return flow.Text{En: fmt.Sprintf("%s of the %s client", f.Figure, f.Client), Zh: fmt.Sprintf("%s 客户端的 %s", f.Client, f.Figure)}
}

func (f scoreboardFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	ev, ok := res.Evidence.(*WatchCompareEvidence)
	if !ok {
		return "no scoreboard (the step's action is not watchCompare)", false, nil
	}
	for _, s := range ev.Clients {
		if s.Client != f.Client {
			continue
		}
		if f.Figure == "connections" {
			return strconv.Itoa(s.Connections), true, nil
		}
		return strconv.Itoa(s.Requests), true, nil
	}
	return "no line for client " + f.Client, false, nil
}
