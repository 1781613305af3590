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
	// parse reads the key's value n. Its errors are *FileError at a
	// position in n, their message starting with key.
	parse func(l *loader, key string, n *yaml.Node) (actionRunner, error)
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

// actionKindOf returns the registered kind of key.
func actionKindOf(key string) (actionKind, bool) {
	for _, k := range actionKinds {
		if k.key == key {
			return k, true
		}
	}
	return actionKind{}, false
}

// actionKeys lists the actions' keys in registry order, as messages do.
func actionKeys() []string {
	keys := make([]string, len(actionKinds))
	for i, k := range actionKinds {
		keys[i] = k.key
	}
	return keys
}
