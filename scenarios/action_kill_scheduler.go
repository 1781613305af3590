package scenarios

import (
	"context"
	"fmt"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/cluster"
)

// KillSchedulerAction kills a scheduler instance as a crash would (its
// Lease not given up): the one holding the Lease kube-system/kube-scheduler
// ("leader"), or the named one; then it waits until another instance
// holds the Lease, or the step's timeout.
type KillSchedulerAction struct{ Instance string }

var _ actionRunner = (*KillSchedulerAction)(nil)

func (a *KillSchedulerAction) Kind() string   { return "killScheduler" }
func (a *KillSchedulerAction) String() string { return "killScheduler " + a.Instance }

// parseKillScheduler reads "leader" or an instance's name.
func parseKillScheduler(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	name, err := decodeAs[str](n)
	if err != nil {
		return nil, err
	}
	return &KillSchedulerAction{Instance: string(name)}, nil
}

// run kills the instance; the result's message says which, who holds
// the Lease afterwards, and how long the Lease took to change hands.
func (a *KillSchedulerAction) run(ctx context.Context, p *player, _ string) (StepResult, error) {
	c := p.cluster
	holder, err := c.SchedulerLeader(ctx)
	if err != nil {
		return StepResult{}, err
	}
	name := a.Instance
	if name == "leader" {
		if name = instanceOf(c, holder); name == "" {
			return StepResult{}, fmt.Errorf("killScheduler leader: no running scheduler instance holds the Lease (holder %q)", holder)
		}
	}
	killed := time.Now()
	if err := c.KillSchedulerInstance(name); err != nil {
		return StepResult{}, err
	}
	msg := fmt.Sprintf("killed %s, the Lease kube-system/%s not released", name, cluster.SchedulerLease)
	for {
		now, err := c.SchedulerLeader(ctx)
		if err == nil && now != "" && now != holder {
			took := time.Since(killed).Round(100 * time.Millisecond)
			return StepResult{Message: fmt.Sprintf("%s; %s holds it now, %s later", msg, now, took)}, nil
		}
		select {
		case <-ctx.Done():
			return StepResult{Message: msg + "; no other instance took the Lease"}, nil
		case <-time.After(pollInterval):
		}
	}
}

// instanceOf returns the running scheduler instance whose identity is
// identity, or "".
func instanceOf(c *cluster.Cluster, identity string) string {
	for _, name := range c.SchedulerInstances() {
		if id, ok := c.SchedulerIdentity(name); ok && id == identity {
			return name
		}
	}
	return ""
}
