package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/internal/useragent"
)

// The Leases the scheduler and the controller manager campaign for, in
// kube-system, as kube-scheduler's and kube-controller-manager's
// --leader-elect-resource-name default them.
const (
	SchedulerLease         = "kube-scheduler"
	ControllerManagerLease = "kube-controller-manager"
)

// The instances StartScheduler and StartControllerManager run: the
// "hostname" part of their identities.
const (
	DefaultSchedulerInstance         = "kubesim-scheduler-1"
	DefaultControllerManagerInstance = "kubesim-controller-manager-1"
)

// LeaderElectionTimings are leader election's three durations, as
// component-base's LeaderElectionConfiguration names them.
type LeaderElectionTimings struct {
	// LeaseDuration is how long a candidate waits, after it last saw the
	// Lease change, before it takes the Lease over.
	LeaseDuration time.Duration
	// RenewDeadline is how long the leader tries to renew before it gives
	// up leading.
	RenewDeadline time.Duration
	// RetryPeriod is the wait between two tries (to acquire, to renew).
	RetryPeriod time.Duration
}

// DefaultLeaderElectionTimings are component-base's defaults
// (--leader-elect-lease-duration 15s, --leader-elect-renew-deadline 10s,
// --leader-elect-retry-period 2s), which kube-scheduler and
// kube-controller-manager use.
var DefaultLeaderElectionTimings = LeaderElectionTimings{
	LeaseDuration: 15 * time.Second,
	RenewDeadline: 10 * time.Second,
	RetryPeriod:   2 * time.Second,
}

// MaxLeaderElectionSpeed bounds the speed leader election runs at: a
// Lease counts its duration in whole seconds (spec.leaseDurationSeconds;
// client-go truncates), so 15 s may be divided by 15 at most; a faster
// speed keeps a Lease of 1 s, with upstream's proportions.
const MaxLeaderElectionSpeed = 15

// leaderElectionTimings divides upstream's durations by speed (at most
// MaxLeaderElectionSpeed). Speed 0 keeps them as they are: a free Lease
// is taken at once whatever its duration, so a single instance starts as
// fast; only a handover waits (15 s after a crash, as upstream's would),
// and renewals every 2 s write etcd as rarely as upstream's do. Tests
// that want quick handovers call SetLeaderElectionSpeed.
func leaderElectionTimings(speed float64) LeaderElectionTimings {
	if speed <= 0 {
		speed = 1
	}
	speed = min(speed, MaxLeaderElectionSpeed)
	d := DefaultLeaderElectionTimings
	scale := func(x time.Duration) time.Duration { return time.Duration(float64(x) / speed) }
	return LeaderElectionTimings{LeaseDuration: scale(d.LeaseDuration), RenewDeadline: scale(d.RenewDeadline), RetryPeriod: scale(d.RetryPeriod)}
}

// electedComponents are the scheduler and controller manager instances
// of a cluster, by name. The zero value is ready; guarded by
// Cluster.compMu.
type electedComponents struct {
	schedulers  map[string]*electedInstance
	controllers map[string]*electedInstance
	// speed, when positive, replaces the cluster's speed for the
	// instances started next (SetLeaderElectionSpeed).
	speed float64
	// checked: the Lease of the kind was looked at for an earlier
	// process's holder (releaseStaleLeaseLocked).
	checked map[instanceKind]bool
}

// SetLeaderElectionSpeed makes the scheduler and controller manager
// instances started from now on run leader election at speed instead of
// the cluster's (0: the cluster's again): a test or a lesson can watch a
// handover in a second without speeding up everything else. Safe for
// concurrent use.
func (c *Cluster) SetLeaderElectionSpeed(speed float64) {
	c.compMu.Lock()
	defer c.compMu.Unlock()
	c.elected.speed = max(speed, 0)
}

// leaderElectionTimingsLocked are the timings of an instance started
// now. Called with c.compMu held.
func (c *Cluster) leaderElectionTimingsLocked() LeaderElectionTimings {
	if c.elected.speed > 0 {
		return leaderElectionTimings(c.elected.speed)
	}
	return leaderElectionTimings(c.speed)
}

// errLeaseLost ends an instance that stopped leading while it was not
// asked to stop.
var errLeaseLost = errors.New("leader election lost")

// electedInstance is one scheduler or controller manager that campaigns
// for its Lease and works while it holds it (campaign).
type electedInstance struct {
	name, identity string
	lease          string // the Lease's name, in kube-system
	timings        LeaderElectionTimings
	// releaseOnCancel: a graceful stop gives the Lease up
	// (kube-scheduler's ReleaseOnCancel; kube-controller-manager does not).
	releaseOnCancel bool
	lock            *instanceLock
	// events writes the Lease's LeaderElection events; eventSource is
	// their source.
	events      typedcorev1.EventInterface
	eventSource string
	comp        *component

	mu sync.Mutex
	// closed: the campaign is over or stopping; no work starts any more.
	closed bool
	// stopWork ends the work under way (nil before it starts); workDone
	// closes when it has returned.
	stopWork context.CancelFunc
	workDone chan struct{}
}

// newElectedInstance returns an instance named name of the component
// that campaigns for lease as id, with a fresh identity (name_uuid, as
// kube-scheduler's and kube-controller-manager's hostname_uuid).
func (c *Cluster) newElectedInstance(name, lease string, id pki.Identity, timings LeaderElectionTimings) (*electedInstance, error) {
	rc, err := c.restConfigFor(id)
	if err != nil {
		return nil, err
	}
	// The lock's own client, with a timeout of RenewDeadline, as
	// resourcelock.NewFromKubeconfig makes it.
	rc = useragent.Add(rc, "leader-election")
	rc.Timeout = timings.RenewDeadline
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("cluster: leader election client: %w", err)
	}
	inst := &electedInstance{name: name, identity: name + "_" + string(uuid.NewUUID()), lease: lease, timings: timings,
		events: client.CoreV1().Events("")}
	inst.lock = &instanceLock{LeaseLock: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: lease},
		Client:     client.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: inst.identity},
	}}
	return inst, nil
}

// campaign runs work while the instance holds its Lease, as
// kube-scheduler's and kube-controller-manager's leaderelection.RunOrDie:
// it waits to acquire the Lease, runs work with a context that ends when
// it stops leading, and returns once work has returned. It returns nil
// when ctx ended (the instance was stopped), errLeaseLost when the
// instance lost the Lease (upstream's process then exits: the instance
// ends; nothing restarts it), or work's error if work ended on its own.
func (inst *electedInstance) campaign(ctx context.Context, work func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := klog.FromContext(ctx).WithValues("lease", metav1.NamespaceSystem+"/"+inst.lease, "identity", inst.identity)
	ctx = klog.NewContext(ctx, logger)
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: inst.events})
	inst.lock.LockConfig.EventRecorder = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: inst.eventSource})

	var workErr error
	t := inst.timings
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock: inst.lock, Name: inst.lease, ReleaseOnCancel: inst.releaseOnCancel,
		LeaseDuration: t.LeaseDuration, RenewDeadline: t.RenewDeadline, RetryPeriod: t.RetryPeriod,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(lctx context.Context) {
				wctx, done, ok := inst.startWork(lctx)
				if !ok {
					return
				}
				defer close(done)
				logger.Info("Leading: starting")
				if workErr = work(wctx); lctx.Err() == nil {
					cancel() // the work ended on its own: so does the instance
				}
			},
			OnStoppedLeading: func() { logger.Info("Stopped leading (or campaigning)") },
			OnNewLeader:      func(id string) { logger.Info("New leader observed", "leader", id) },
		},
	})
	if err != nil {
		return fmt.Errorf("cluster: %s: %w", inst.name, err)
	}
	le.Run(ctx)
	inst.waitWork()
	switch {
	case workErr != nil && !errors.Is(workErr, context.Canceled):
		return workErr
	case ctx.Err() == nil:
		logger.Error(nil, "Leaderelection lost")
		return fmt.Errorf("cluster: %s: %w", inst.name, errLeaseLost)
	}
	return nil
}

// startWork gives the work about to start its context, derived from
// lctx, and the channel to close when it returns; ok is false if the
// campaign is over or stopping (then no work starts).
func (inst *electedInstance) startWork(lctx context.Context) (_ context.Context, done chan struct{}, ok bool) {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.closed {
		return nil, nil, false
	}
	wctx, stop := context.WithCancel(lctx)
	inst.stopWork, inst.workDone = stop, make(chan struct{})
	return wctx, inst.workDone, true
}

// waitWork marks the campaign closed (no work starts any more) and waits
// for the work under way, if any, to return.
func (inst *electedInstance) waitWork() {
	inst.mu.Lock()
	inst.closed = true
	done := inst.workDone
	inst.mu.Unlock()
	if done != nil {
		<-done
	}
}

// stop stops the instance. graceful is SIGTERM: a scheduler ends its
// work before it cancels its campaign, which then gives the Lease up
// (ReleaseOnCancel's contract: nothing the Lease guards runs any more); a
// controller manager keeps the Lease until it expires, as upstream's. A
// kill (not graceful) is a crash: from now on the instance's lock reaches
// no API server, so the Lease stays its holder's until it expires.
func (inst *electedInstance) stop(graceful bool) error {
	if !graceful {
		inst.lock.dead.Store(true)
	} else if inst.releaseOnCancel {
		inst.mu.Lock()
		inst.closed = true
		stop, done := inst.stopWork, inst.workDone
		inst.mu.Unlock()
		if stop != nil {
			stop()
			<-done
		}
	}
	err := inst.comp.stop()
	if errors.Is(err, errLeaseLost) {
		return nil // it had already ended
	}
	return err
}

// running reports whether the instance has not ended.
func (inst *electedInstance) running() bool {
	select {
	case <-inst.comp.done:
		return false
	default:
		return true
	}
}

// errKilled is what a killed instance's lock answers.
var errKilled = errors.New("the instance was killed")

// instanceLock is a LeaseLock that a kill cuts off: once dead, it
// neither reads nor writes the Lease, nor records events, as a crashed
// process does not.
type instanceLock struct {
	*resourcelock.LeaseLock
	dead atomic.Bool
}

var _ resourcelock.Interface = (*instanceLock)(nil)

// Get reads the Lease, unless the lock is dead.
func (l *instanceLock) Get(ctx context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	if l.dead.Load() {
		return nil, nil, errKilled
	}
	return l.LeaseLock.Get(ctx)
}

// Create makes the Lease, unless the lock is dead.
func (l *instanceLock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	if l.dead.Load() {
		return errKilled
	}
	return l.LeaseLock.Create(ctx, ler)
}

// Update writes the Lease, unless the lock is dead.
func (l *instanceLock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	if l.dead.Load() {
		return errKilled
	}
	return l.LeaseLock.Update(ctx, ler)
}

// RecordEvent records a LeaderElection event on the Lease ("<identity>
// became leader"), unless the lock is dead.
func (l *instanceLock) RecordEvent(s string) {
	if !l.dead.Load() {
		l.LeaseLock.RecordEvent(s)
	}
}

// leaseHolder returns the holder of the Lease kube-system/name: "" when
// nobody holds it (released, or never taken).
func (c *Cluster) leaseHolder(ctx context.Context, name string) (string, error) {
	admin, err := c.AdminClient()
	if err != nil {
		return "", err
	}
	l, err := admin.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("cluster: lease %s/%s: %w", metav1.NamespaceSystem, name, err)
	}
	if l.Spec.HolderIdentity == nil {
		return "", nil
	}
	return *l.Spec.HolderIdentity, nil
}
