package cluster

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/scheduler"
)

// StartSchedulerInstance starts a scheduler named name, as
// system:kube-scheduler, with the identity name_<uuid>. As kube-scheduler
// with --leader-elect (its default), it starts its informers at once and
// waits for them to sync, then campaigns for the Lease
// kube-system/kube-scheduler and schedules only while it holds it; if it
// loses the Lease it ends (upstream's process exits) and is started
// again after a back-off (restartAfterLeaseLoss). Several instances
// may run side by side; one schedules at a time. The cluster's first
// instance releases a Lease left by an earlier process on the same data
// dir (releaseStaleLeaseLocked). It is an error if an instance of that
// name runs.
func (c *Cluster) StartSchedulerInstance(name string) error {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	if inst := c.elected.of(schedulerInstances)[name]; inst != nil && inst.running() {
		return fmt.Errorf("cluster: the scheduler %s is already running", name)
	}
	c.releaseStaleLeaseLocked(schedulerInstances, SchedulerLease)
	inst, err := c.newElectedInstance(name, SchedulerLease, pki.Scheduler(), c.leaderElectionTimingsLocked())
	if err != nil {
		return err
	}
	// kube-scheduler's leader election config sets ReleaseOnCancel, and
	// records its LeaderElection events as its first profile's scheduler.
	inst.releaseOnCancel, inst.eventSource = true, scheduler.DefaultSchedulerName
	client, err := c.clientFor(pki.Scheduler())
	if err != nil {
		return err
	}
	cfg := scheduler.NewConfig(client)
	cfg.Recorder = c.Recorder
	cfg.Gate = c.Gate
	cfg.Identity = inst.identity
	cfg.Lead = func(ctx context.Context, schedule func(context.Context)) error {
		return inst.campaign(ctx, func(ctx context.Context) error {
			schedule(ctx)
			return nil
		})
	}
	s, err := scheduler.New(cfg)
	if err != nil {
		return err
	}
	inst.comp = c.runComponent(s.Run)
	c.elected.of(schedulerInstances)[name] = inst
	c.restartAfterLeaseLoss(schedulerInstances, name, inst, c.StartSchedulerInstance)
	return nil
}

// StopSchedulerInstance stops the scheduler named name as SIGTERM stops
// kube-scheduler: it stops scheduling, waits for its bindings under way,
// and gives its Lease up (ReleaseOnCancel), so that a standby instance
// takes over within a RetryPeriod instead of a LeaseDuration.
func (c *Cluster) StopSchedulerInstance(name string) error {
	inst, err := c.takeInstance(schedulerInstances, name)
	if err != nil {
		return err
	}
	return inst.stop(true)
}

// KillSchedulerInstance stops the scheduler named name as a crash would:
// at once, its Lease not given up, so a standby instance takes over only
// once the Lease has expired (LeaseDuration after it last saw it
// renewed).
func (c *Cluster) KillSchedulerInstance(name string) error {
	inst, err := c.takeInstance(schedulerInstances, name)
	if err != nil {
		return err
	}
	return inst.stop(false)
}

// SchedulerInstances lists the scheduler instances that run, by name.
func (c *Cluster) SchedulerInstances() []string {
	return c.instanceNames(schedulerInstances)
}

// SchedulerIdentity returns the leader election identity of the
// scheduler instance named name (name_<uuid>), if it runs.
func (c *Cluster) SchedulerIdentity(name string) (string, bool) {
	return c.instanceIdentity(schedulerInstances, name)
}

// SchedulerLeader returns the holder of the Lease kube-system/kube-scheduler
// as the Lease says it: an identity, or "" when nobody holds it.
func (c *Cluster) SchedulerLeader(ctx context.Context) (string, error) {
	return c.leaseHolder(ctx, SchedulerLease)
}

// StartControllerManagerInstance starts a controller manager named name,
// as system:kube-controller-manager, with the cluster's speed and the
// identity name_<uuid>. As kube-controller-manager with --leader-elect
// (its default), it campaigns for the Lease
// kube-system/kube-controller-manager first, and only once it holds it
// starts its informers and controllers; if it loses the Lease it ends
// (upstream's process exits) and is started again after a back-off
// (restartAfterLeaseLoss). The cluster's first instance releases a
// Lease left by an earlier process on the same data dir
// (releaseStaleLeaseLocked). It is an error if an instance of that name
// runs.
func (c *Cluster) StartControllerManagerInstance(name string) error {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	if inst := c.elected.of(controllerManagerInstances)[name]; inst != nil && inst.running() {
		return fmt.Errorf("cluster: the controller manager %s is already running", name)
	}
	c.releaseStaleLeaseLocked(controllerManagerInstances, ControllerManagerLease)
	inst, err := c.newElectedInstance(name, ControllerManagerLease, pki.ControllerManager(), c.leaderElectionTimingsLocked())
	if err != nil {
		return err
	}
	inst.eventSource = "kube-controller-manager"
	rc, err := c.restConfigFor(pki.ControllerManager())
	if err != nil {
		return err
	}
	cfg := controllers.NewConfig(rc)
	cfg.Speed = c.speed
	cfg.NodeMonitorGracePeriod = c.heartbeats.grace
	cfg.Observer = controllerObserver(c.Recorder)
	cfg.Identity = inst.identity
	cfg.ClusterSigningCertFile, cfg.ClusterSigningKeyFile = c.Authority.SigningFiles()
	m, err := controllers.New(cfg)
	if err != nil {
		return err
	}
	inst.comp = c.runComponent(func(ctx context.Context) error { return inst.campaign(ctx, m.Run) })
	c.elected.of(controllerManagerInstances)[name] = inst
	c.restartAfterLeaseLoss(controllerManagerInstances, name, inst, c.StartControllerManagerInstance)
	return nil
}

// StopControllerManagerInstance stops the controller manager named name
// as SIGTERM stops kube-controller-manager: its controllers stop, and its
// Lease stays held until it expires (upstream does not release it), so a
// standby instance takes over a LeaseDuration later.
func (c *Cluster) StopControllerManagerInstance(name string) error {
	inst, err := c.takeInstance(controllerManagerInstances, name)
	if err != nil {
		return err
	}
	return inst.stop(true)
}

// KillControllerManagerInstance stops the controller manager named name
// as a crash would: at once, without another request.
func (c *Cluster) KillControllerManagerInstance(name string) error {
	inst, err := c.takeInstance(controllerManagerInstances, name)
	if err != nil {
		return err
	}
	return inst.stop(false)
}

// ControllerManagerInstances lists the controller manager instances that
// run, by name.
func (c *Cluster) ControllerManagerInstances() []string {
	return c.instanceNames(controllerManagerInstances)
}

// ControllerManagerIdentity returns the leader election identity of the
// controller manager instance named name, if it runs.
func (c *Cluster) ControllerManagerIdentity(name string) (string, bool) {
	return c.instanceIdentity(controllerManagerInstances, name)
}

// ControllerManagerLeader returns the holder of the Lease
// kube-system/kube-controller-manager: an identity, or "" when nobody
// holds it.
func (c *Cluster) ControllerManagerLeader(ctx context.Context) (string, error) {
	return c.leaseHolder(ctx, ControllerManagerLease)
}

// instanceKind selects the scheduler or the controller manager
// instances.
type instanceKind int

const (
	schedulerInstances instanceKind = iota
	controllerManagerInstances
)

func (k instanceKind) String() string {
	if k == schedulerInstances {
		return "scheduler"
	}
	return "controller manager"
}

// of returns the instances of kind k, making the map if needed. Called
// with Cluster.compMu held.
func (e *electedComponents) of(k instanceKind) map[string]*electedInstance {
	m := &e.schedulers
	if k == controllerManagerInstances {
		m = &e.controllers
	}
	if *m == nil {
		*m = map[string]*electedInstance{}
	}
	return *m
}

// takeInstance removes the instance of kind k named name and returns it.
func (c *Cluster) takeInstance(k instanceKind, name string) (*electedInstance, error) {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	instances := c.elected.of(k)
	inst := instances[name]
	if inst == nil {
		return nil, fmt.Errorf("cluster: the %s %s is not running", k, name)
	}
	delete(instances, name)
	return inst, nil
}

// instanceNames lists the instances of kind k that have not ended.
func (c *Cluster) instanceNames(k instanceKind) []string {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	var names []string
	for n, inst := range c.elected.of(k) {
		if inst.running() {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func (c *Cluster) instanceIdentity(k instanceKind, name string) (string, bool) {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	inst := c.elected.of(k)[name]
	if inst == nil || !inst.running() {
		return "", false
	}
	return inst.identity, true
}

// takeAllInstancesLocked empties c.elected's maps and returns what they
// held, schedulers first. Called with c.compMu held.
func (c *Cluster) takeAllInstancesLocked() []*electedInstance {
	var all []*electedInstance
	for _, m := range []map[string]*electedInstance{c.elected.schedulers, c.elected.controllers} {
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			all = append(all, m[n])
		}
	}
	c.elected.schedulers, c.elected.controllers = nil, nil
	return all
}
