package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
)

// StartupTraceAction shows how the scenario's own cluster started, as
// `kubesim serve --trace` prints it: Complete, Validate, then the steps
// of Run (etcd, the listener, the caches, serving, each post-start hook,
// ready). Its result's message lists the post-start hooks that finished.
type StartupTraceAction struct{}

var _ actionRunner = (*StartupTraceAction)(nil)

func (a *StartupTraceAction) Kind() string   { return "startupTrace" }
func (a *StartupTraceAction) String() string { return "startupTrace" }

// parseStartupTrace reads `true`, its only value.
func parseStartupTrace(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	if err := mustBeTrue(n); err != nil {
		return nil, err
	}
	return &StartupTraceAction{}, nil
}

// run reads the cluster's startup steps (those of its first start, and of
// any restart of the API server since).
func (a *StartupTraceAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	steps := p.cluster.StartupSteps()
	var res StepResult
	addTranscript(&res, "this cluster's start, as serve --trace prints it (%d steps):", len(steps))
	var hooks []string
	for _, s := range steps {
		addTranscriptText(&res, startupLine(s))
		if s.Phase == cluster.StartupRun && s.Name == "poststarthook" && s.Outcome == "finished" {
			hooks = append(hooks, "poststarthook/"+s.Hook+" finished")
		}
	}
	if len(steps) == 0 {
		return res, fmt.Errorf("startupTrace: the cluster recorded no startup steps")
	}
	res.Message = strings.Join(hooks, "\n")
	return res, nil
}
