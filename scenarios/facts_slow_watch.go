package scenarios

import (
	"context"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// slowWatchMissedFact is how many of the writer's changes the step's
// slowWatch client never received, across its watch and its re-watch
// (as the slowWatcher expectation counts them).
type slowWatchMissedFact struct{}

func parseSlowWatchMissedFact(*questionDoc, *yaml.Node) (fact, error) {
	return slowWatchMissedFact{}, nil
}

func (slowWatchMissedFact) about() flow.Text {
	return flow.Text{En: "changes the slow watcher never received", Zh: "慢 watcher 始终没有收到的变化数"}
}

func (slowWatchMissedFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	ev, _ := res.Evidence.(*SlowWatchEvidence)
	if ev == nil {
		return "no slowWatch in this step", false, nil
	}
	return strconv.Itoa(len(ev.Missed)), true, nil
}
