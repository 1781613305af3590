package scheduler

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/clock"

	"github.com/kubesim/kubesim/internal/flow"
)

// Defaults used by NewConfig.
const (
	// DefaultSchedulerName is the spec.schedulerName of the pods this
	// scheduler takes (what the API server defaults it to).
	DefaultSchedulerName = corev1.DefaultSchedulerName
	// DefaultInitialBackoff and DefaultMaxBackoff bound the wait before a
	// pod that failed is tried again (kube-scheduler's
	// podInitialBackoffSeconds and podMaxBackoffSeconds).
	DefaultInitialBackoff = 1 * time.Second
	DefaultMaxBackoff     = 10 * time.Second
	// DefaultParallelAPICalls bounds the bindings and failure reports
	// (event, pod status) in flight at once.
	DefaultParallelAPICalls = 16
)

// Config configures a Scheduler.
type Config struct {
	// Client talks to the API server, authenticated as
	// system:kube-scheduler.
	Client kubernetes.Interface
	// Recorder receives a flow event per scheduling attempt while it has
	// readers (the evidence is not even built without them); nil records
	// nothing. The first recorded attempt that finds a node for a pod has
	// stage flow.StageScheduled, every other attempt stage 0.
	Recorder *flow.Recorder
	// Gate holds a pod's creation at the scheduler's two points, once per
	// pod each: flow.PointBeforeScheduling when the pod is popped for its
	// first attempt (the scheduling loop waits), and
	// flow.PointBeforeBinding after the node is chosen and stage 4
	// recorded, before POST pods/<name>/binding (in the binding's own
	// goroutine: other pods are scheduled meanwhile). Nil lets everything
	// pass.
	Gate *flow.Gate
	// SchedulerName selects the pods to schedule by spec.schedulerName and
	// is the source of the events written.
	SchedulerName string
	// InitialBackoff and MaxBackoff: a pod that failed waits InitialBackoff,
	// doubled with every further failure, up to MaxBackoff.
	InitialBackoff, MaxBackoff time.Duration
	// Clock drives backoff and timestamps; nil means the real clock.
	Clock clock.WithTicker
	// TieBreaker picks among the nodes that share the best score; nil
	// picks at random, as kube-scheduler does. FirstByName makes the
	// choice repeatable.
	TieBreaker TieBreaker
	// ParallelAPICalls bounds the bindings and failure reports in flight
	// (0: DefaultParallelAPICalls).
	ParallelAPICalls int
	// Parallelism is how many workers filter and score the nodes of one
	// attempt (kube-scheduler's parallelism; 0: DefaultParallelism),
	// never more than GOMAXPROCS. The choice does not depend on it.
	Parallelism int
	// Identity names this instance among the schedulers that may run
	// side by side: its leader election identity (kube-scheduler's is
	// hostname_uuid; kubesim's "kubesim-scheduler-1_<uuid>"). The flow
	// events of its attempts carry it (flow.Event.Instance), so that the
	// instance that bound a pod can be told. Empty: not said.
	Identity string
	// Lead, if set, decides when this instance schedules: Run calls it
	// once the informers have synced, with schedule, and returns what it
	// returns. Lead calls schedule at most once, while the instance leads
	// (holds its Lease), with a context that ends when it stops leading;
	// schedule returns once the scheduling loop and the bindings under way
	// have ended. kube-scheduler's server.go campaigns at the same point:
	// the informers of a standby instance are started and synced, so that
	// it schedules at once when it takes over (unless
	// DelayCacheUntilActive). Nil: schedule until Run's context ends.
	Lead func(ctx context.Context, schedule func(context.Context)) error
}

// NewConfig returns the defaults for client.
func NewConfig(client kubernetes.Interface) *Config {
	return &Config{
		Client:           client,
		SchedulerName:    DefaultSchedulerName,
		InitialBackoff:   DefaultInitialBackoff,
		MaxBackoff:       DefaultMaxBackoff,
		ParallelAPICalls: DefaultParallelAPICalls,
	}
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	switch {
	case c.Client == nil:
		return errors.New("scheduler: no client")
	case c.SchedulerName == "":
		return errors.New("scheduler: empty scheduler name")
	case c.InitialBackoff <= 0:
		return errors.New("scheduler: initial backoff must be positive")
	case c.MaxBackoff < c.InitialBackoff:
		return errors.New("scheduler: max backoff must not be shorter than the initial backoff")
	case c.ParallelAPICalls < 0:
		return errors.New("scheduler: parallel API calls must not be negative")
	case c.Parallelism < 0:
		return errors.New("scheduler: parallelism must not be negative")
	}
	return nil
}

// TieBreaker picks one of the nodes that share the highest score; names
// holds at least one name, sorted. It is called from the scheduling loop
// only, never concurrently.
type TieBreaker func(names []string) string

// FirstByName picks the first name in sort order: the same cluster state
// always gives the same choice.
func FirstByName(names []string) string { return names[0] }

// NewRandomTieBreaker picks uniformly at random, from a sequence fixed by
// seed.
func NewRandomTieBreaker(seed uint64) TieBreaker {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	return func(names []string) string { return names[r.IntN(len(names))] }
}
