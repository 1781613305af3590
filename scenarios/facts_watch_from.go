package scenarios

import (
	"context"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// watchFromValues are the values of watchFrom.
var watchFromValues = []string{"list", "0", "none", "other"}

// watchFromFact is where a kubectlWatch step's watch started, as its
// request named it: "list" (the resourceVersion its list had just
// answered with), "0" (any recent state), "none" (no resourceVersion:
// the current state) or "other".
type watchFromFact struct{}

func parseWatchFromFact(*questionDoc, *yaml.Node) (fact, error) { return watchFromFact{}, nil }

func (watchFromFact) about() flow.Text {
	return flow.Text{En: "resourceVersion the watch request named, against the list's",
		Zh: "watch 请求带的 resourceVersion，与 list 的相比"}
}

func (watchFromFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	ev, ok := res.Evidence.(*KubectlWatchEvidence)
	switch {
	case !ok || ev.WatchURI == "":
		return "no watch request (a kubectlWatch step's fact)", false, nil
	case res.WatchFrom == "":
		return "none", true, nil
	case res.WatchFrom == "0":
		return "0", true, nil
	case res.WatchFrom == ev.ListRV:
		return "list", true, nil
	}
	return "other", true, nil
}
