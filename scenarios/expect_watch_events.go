package scenarios

import (
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// WatchEventsExpectation: the step's watch or long-poll read events of
// exactly these types, in this order.
type WatchEventsExpectation struct{ Types []string }

var _ resultChecker = (*WatchEventsExpectation)(nil)

// watchEventTypes are the types of watch events: the API server's, then
// etcd's (of an etcdWatch).
var watchEventTypes = []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "PUT", "DELETE"}

func (e *WatchEventsExpectation) Kind() string { return "watchEvents" }
func (e *WatchEventsExpectation) String() string {
	return "watchEvents [" + strings.Join(e.Types, " ") + "]"
}

// parseWatchEvents reads a list of event types (it may be empty).
func parseWatchEvents(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	types, err := decodeAs[[]str](n)
	if err != nil {
		return nil, err
	}
	e := &WatchEventsExpectation{Types: []string{}}
	for i, t := range types {
		if err := oneOf(n.Content[i], string(t), watchEventTypes); err != nil {
			return nil, err
		}
		e.Types = append(e.Types, string(t))
	}
	return e, nil
}

// checkResult compares the types of the events the action read.
func (e *WatchEventsExpectation) checkResult(res *StepResult) (string, bool) {
	if slices.Equal(res.Watch, e.Types) {
		return "", true
	}
	return fmt.Sprintf("watch events %v", res.Watch), false
}
