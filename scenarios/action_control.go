package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// ControlAction is one of stopScheduler, startScheduler, restartAPIServer,
// compactEtcd, stopMetricsServer and startMetricsServer.
type ControlAction struct{ Verb string }

var _ actionRunner = (*ControlAction)(nil)

func (a *ControlAction) Kind() string   { return a.Verb }
func (a *ControlAction) String() string { return a.Verb }

// parseControl reads `true`, the only value of stopScheduler,
// startScheduler, restartAPIServer, compactEtcd, stopMetricsServer and
// startMetricsServer.
func parseControl(_ *loader, key string, n *yaml.Node) (actionRunner, error) {
	if err := mustBeTrue(n); err != nil {
		return nil, err
	}
	return &ControlAction{Verb: key}, nil
}

// mustBeTrue reads n, the value of an action whose only value is true
// (it is done, or left out).
func mustBeTrue(n *yaml.Node) error {
	b, err := decodeAs[boolean](n)
	if err == nil && !b {
		return errAt(n, "must be true (leave the action out to not do it)")
	}
	return err
}

// run stops or starts the scheduler or the metrics server, restarts the
// API server, or compacts etcd (its result's message then names the
// revision).
func (a *ControlAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	var err error
	switch a.Verb {
	case "stopScheduler":
		err = p.cluster.StopScheduler()
	case "startScheduler":
		err = p.cluster.StartScheduler()
	case "restartAPIServer":
		err = p.cluster.RestartAPIServer(ctx)
	case "stopMetricsServer":
		err = p.cluster.StopMetricsServer()
	case "startMetricsServer":
		err = p.cluster.StartMetricsServer(ctx)
	case "compactEtcd":
		var rev int64
		if rev, err = p.cluster.CompactEtcd(ctx); err == nil {
			return StepResult{Message: fmt.Sprintf("compacted at revision %d", rev)}, nil
		}
	default:
		err = fmt.Errorf("unknown control action %s", a.Verb)
	}
	return StepResult{}, err
}
