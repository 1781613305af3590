package scenarios

import (
	"context"

	yaml "go.yaml.in/yaml/v3"
)

// The engine is shaped as kube-scheduler's framework is: each action kind
// and each expectation kind is one file (action_*.go, expect_*.go) with its
// type, its parser and what it does when a step runs, and registry.go
// lists them, one line per kind. The loader and the runner know only the
// interfaces below.

// actionKind is one key a step may name its action with.
type actionKind struct {
	// key is the action's key in a step ("apply"); Kind of what parse
	// returns.
	key string
	// parse reads the key's value n, most often by decoding it into a
	// struct (decode). Its errors are at nodes of n (errAt), which the
	// loader names after key (keyScope), or a manifest's *FileError.
	parse func(l *loader, key string, n *yaml.Node) (actionRunner, error)
}

// expectationKind is one key an item of a step's expect list may have.
type expectationKind struct {
	// key is the expectation's key ("podStage"); Kind of what parse
	// returns.
	key string
	// parse reads the key's value n into a prober or a resultChecker,
	// most often by decoding it into a struct (decode). Its errors are at
	// nodes of n (errAt), which the loader names after key (keyScope).
	parse func(l *loader, key string, n *yaml.Node) (Expectation, error)
}

// actionRunner is an Action the runner can do: every action of this
// package. run acts as user (a name cluster.IdentityOf knows) on the
// player's cluster, within ctx (the step's budget). A non-nil error means
// the action failed; the result then says how (its HTTP status, when
// there was a request). run is called from Play's goroutine, one action at
// a time.
type actionRunner interface {
	Action
	run(ctx context.Context, p *player, user string) (StepResult, error)
}

// prober is an expectation about the cluster. probe looks once whether it
// holds; the runner asks again until it does or the step's timeout
// passes. got says what was seen instead (for the failure message);
// changed, if not nil, is closed when new flow events arrive, and the
// runner then looks again at once. ctx bounds one look. probe is called
// from Play's goroutine.
type prober interface {
	Expectation
	probe(ctx context.Context, p *player) (got string, ok bool, changed <-chan struct{})
}

// resultChecker is an expectation about the step's result (the action's
// status, message or watch events). It is checked once, after the action
// and the pause, and never waits.
type resultChecker interface {
	Expectation
	checkResult(res *StepResult) (got string, ok bool)
}

// failedRequestReader is a resultChecker about what a request answered
// (its status or message): with one in a step, an API error of the
// action that came with an HTTP status is the step's result to check, not
// a failure of the step.
type failedRequestReader interface {
	resultChecker
	readsFailedRequest()
}

// actionKindOf returns the registered kind of key.
func actionKindOf(key string) (actionKind, bool) {
	for _, k := range actionKinds {
		if k.key == key {
			return k, true
		}
	}
	return actionKind{}, false
}

// expectationKindOf returns the registered kind of key.
func expectationKindOf(key string) (expectationKind, bool) {
	for _, k := range expectationKinds {
		if k.key == key {
			return k, true
		}
	}
	return expectationKind{}, false
}

// actionKeys lists the actions' keys in registry order, as messages do.
func actionKeys() []string {
	keys := make([]string, len(actionKinds))
	for i, k := range actionKinds {
		keys[i] = k.key
	}
	return keys
}

// expectKeys lists the expectations' keys in registry order, as messages
// do.
func expectKeys() []string {
	keys := make([]string, len(expectationKinds))
	for i, k := range expectationKinds {
		keys[i] = k.key
	}
	return keys
}
