package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// The facts of the step's result: what its action's requests answered
// and what its watch read.

// Values the facts of this file (and stageRV) can have.
var (
	watchEventValues = []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR", "none"}
	comparisonValues = []string{"less", "same", "greater"}
)

// oneOfFunc returns a valid func accepting exactly the values.
func oneOfFunc(values []string) func(string) bool {
	return func(v string) bool { return slices.Contains(values, v) }
}

// validStatusCode accepts 100 to 599.
func validStatusCode(v string) bool {
	c, err := strconv.Atoi(v)
	return err == nil && c >= 100 && c <= 599 && strconv.Itoa(c) == v
}

// statusFact is the HTTP status code of the action's (last) request.
type statusFact struct{}

var _ resultFact = statusFact{}

func parseStatusFact(*questionDoc, *yaml.Node) (fact, error) { return statusFact{}, nil }

func (statusFact) about() flow.Text {
	return flow.Text{En: "status code of the action's request", Zh: "动作请求的状态码"}
}

func (statusFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	if res.Status == 0 {
		return "no HTTP status (the action made no request)", false, nil
	}
	return strconv.Itoa(res.Status), true, nil
}

// readsFailedRequest: a failed request's status is the fact.
func (statusFact) readsFailedRequest() {}

// watchEventFact is the type of the Index-th (from 1) watch event the
// action read, "none" when it read fewer.
type watchEventFact struct{ Index int }

func parseWatchEventFact(d *questionDoc, n *yaml.Node) (fact, error) {
	f := watchEventFact{Index: 1}
	if d.Index != nil {
		if *d.Index < 1 || *d.Index > 1000 {
			return nil, errAt(valueOf(n, "index"), "%d: watch events count from 1 (to 1000)", *d.Index)
		}
		f.Index = int(*d.Index)
	}
	return f, nil
}

func (f watchEventFact) about() flow.Text {
	return flow.Text{En: fmt.Sprintf("type of watch event %d the action read", f.Index),
		Zh: fmt.Sprintf("动作读到的第 %d 个 watch 事件的类型", f.Index)}
}

func (f watchEventFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	if f.Index > len(res.Watch) {
		return "none", true, nil
	}
	return res.Watch[f.Index-1], true, nil
}

// watchRVFact compares the resourceVersion of the first event the
// action's watch read with the resourceVersion that watch started from
// (its request's resourceVersion parameter): less, same or greater.
// resourceVersions are opaque to clients; kube-apiserver's, and kubesim's,
// are etcd revisions, which is what makes them comparable here.
type watchRVFact struct{}

func parseWatchRVFact(*questionDoc, *yaml.Node) (fact, error) { return watchRVFact{}, nil }

func (watchRVFact) about() flow.Text {
	return flow.Text{En: "resourceVersion of the watch's first event, against the one it started from",
		Zh: "watch 第一个事件的 resourceVersion 与它起始的 resourceVersion 相比"}
}

func (watchRVFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	switch {
	case res.WatchFrom == "":
		return "a watch that named no resourceVersion to start from", false, nil
	case len(res.WatchVersions) == 0 || res.WatchVersions[0] == "":
		return "no watch event with a resourceVersion", false, nil
	}
	v, err := compareRevisions(res.WatchVersions[0], res.WatchFrom)
	if err != nil {
		return err.Error(), false, nil
	}
	return v, true, nil
}

// compareRevisions says whether resourceVersion a is less than, the same
// as or greater than b, both etcd revisions.
func compareRevisions(a, b string) (string, error) {
	x, errA := strconv.ParseInt(a, 10, 64)
	y, errB := strconv.ParseInt(b, 10, 64)
	if errA != nil || errB != nil {
		return "", fmt.Errorf("resourceVersions %q and %q, not both etcd revisions", a, b)
	}
	switch {
	case x < y:
		return "less", nil
	case x > y:
		return "greater", nil
	}
	return "same", nil
}
