package scheduler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	"github.com/kubesim/kubesim/internal/informertrim"
)

// podSelector is the field selector of the scheduler's one pod informer,
// as kube-scheduler's (pkg/scheduler: newPodInformer): every pod but the
// finished ones (Succeeded, Failed), which hold no resources. The
// scheduler splits them itself: pods waiting for a node (spec.nodeName
// empty) go to its queue, pods on a node to its cache.
var podSelector = fields.AndSelectors(
	fields.OneTermNotEqualSelector("status.phase", string(corev1.PodSucceeded)),
	fields.OneTermNotEqualSelector("status.phase", string(corev1.PodFailed)),
).String()

// Scheduler assigns pods to nodes: it watches pods and nodes through
// informers, takes the pods waiting for it from its queue one at a time,
// runs the filter and score plugins against a snapshot of the nodes, and
// binds each pod to the best node through the API. Create it with New and
// start it with Run.
type Scheduler struct {
	name     string
	identity string // Config.Identity
	lead     func(context.Context, func(context.Context)) error
	clock    clock.WithTicker
	recorder flowRecorder
	// stages holds pods at the gate's points and remembers which pods
	// had their stage-4 event.
	stages   *podStages
	fwk      *framework
	queue    *schedulingQueue
	cache    *schedulerCache
	snap     *snapshot
	tieBreak TieBreaker
	// nextStartNode is where the next search for feasible nodes starts,
	// so that in large clusters every node gets its turn.
	nextStartNode int
	// parallel runs Filter and Score on several nodes at once; buf is
	// the attempts' working memory.
	parallel parallelizer
	buf      attemptBuffers

	// The API side; the in-memory benchmark leaves it unset.
	client    kubernetes.Interface
	factories []informers.SharedInformerFactory
	podLister corelisters.PodLister                   // every pod the informer has
	pdbLister policylisters.PodDisruptionBudgetLister // for preemption
	handlers  []cache.ResourceEventHandlerRegistration
	binder    binder
	events    record.EventRecorder // set by Run
	apiCalls  chan struct{}        // bounds the API calls in flight
	apiWG     sync.WaitGroup       // the goroutines making them
	started   atomic.Bool
	hasSynced atomic.Bool
}

// New returns a scheduler for cfg, with its informers set up but not
// started.
func New(cfg *Config) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	// One factory, one informer per type: nodes, persistent volume
	// claims, and pods through the filtered informer (InformerFor makes
	// the factory use it for pods).
	factory := informers.NewSharedInformerFactory(cfg.Client, 0)
	claims := factory.Core().V1().PersistentVolumeClaims()
	s := newScheduler(cfg, claims.Lister())
	s.client = cfg.Client
	s.binder = apiBinder{client: cfg.Client}
	if err := s.wireVolumeBinding(factory, cfg.Client); err != nil {
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	pods := factory.InformerFor(&corev1.Pod{}, newPodInformer)
	s.factories = []informers.SharedInformerFactory{factory}
	s.podLister = corelisters.NewPodLister(pods.GetIndexer())
	pdbs := factory.Policy().V1().PodDisruptionBudgets()
	s.pdbLister = pdbs.Lister()
	for _, h := range []struct {
		informer cache.SharedIndexInformer
		handler  cache.ResourceEventHandler
	}{
		{factory.Core().V1().Nodes().Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: s.addNode, UpdateFunc: s.updateNode, DeleteFunc: s.deleteNode,
		}},
		// Claims: a claim made or bound may let a pod waiting for it go.
		{claims.Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: func(any) {
				s.queue.Move(ClusterEvent{Resource: PersistentVolumeClaimResource, ActionType: ActionAdd}, nil)
			},
			UpdateFunc: func(any, any) {
				s.queue.Move(ClusterEvent{Resource: PersistentVolumeClaimResource, ActionType: ActionUpdate}, nil)
			},
		}},
		// Budgets: preemption avoids victims they protect.
		{pdbs.Informer(), cache.ResourceEventHandlerFuncs{}},
		// Pods on a node: the cache. A pod that is bound moves here from
		// the queue (the filters turn the update into a delete there and
		// an add here).
		{pods, cache.FilteringResourceEventHandler{
			FilterFunc: assignedOrTombstone,
			Handler: cache.ResourceEventHandlerFuncs{
				AddFunc: s.addAssignedPod, UpdateFunc: s.updateAssignedPod, DeleteFunc: s.deleteAssignedPod,
			},
		}},
		// Pods waiting for a node, and for this scheduler: the queue.
		{pods, cache.FilteringResourceEventHandler{
			FilterFunc: s.unassignedAndOurs,
			Handler: cache.ResourceEventHandlerFuncs{
				AddFunc: s.addPendingPod, UpdateFunc: s.updatePendingPod, DeleteFunc: s.deletePendingPod,
			},
		}},
	} {
		reg, err := h.informer.AddEventHandler(h.handler)
		if err != nil {
			return nil, fmt.Errorf("scheduler: %w", err)
		}
		s.handlers = append(s.handlers, reg)
	}
	return s, nil
}

// newScheduler builds the scheduling core: queue, cache, plugins. It
// talks to no API.
func newScheduler(cfg *Config, claims corelisters.PersistentVolumeClaimLister) *Scheduler {
	registerMetrics()
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	tb := cfg.TieBreaker
	if tb == nil {
		tb = NewRandomTieBreaker(rand.Uint64())
	}
	parallel := cfg.ParallelAPICalls
	if parallel == 0 {
		parallel = DefaultParallelAPICalls
	}
	fwk := defaultFramework(claims)
	return &Scheduler{
		name:     cfg.SchedulerName,
		identity: cfg.Identity,
		lead:     cfg.Lead,
		clock:    clk,
		recorder: flowRecorder{r: cfg.Recorder},
		stages:   newPodStages(cfg.Gate),
		fwk:      fwk,
		queue:    newSchedulingQueue(clk, cfg.InitialBackoff, cfg.MaxBackoff, fwk.events),
		cache:    newSchedulerCache(),
		snap:     newSnapshot(),
		tieBreak: tb,
		parallel: newParallelizer(cfg.Parallelism),
		apiCalls: make(chan struct{}, parallel),
	}
}

// HasSynced reports whether the informers have delivered their initial
// lists to the scheduler (false before Run). Safe for concurrent use.
func (s *Scheduler) HasSynced() bool {
	if s.hasSynced.Load() {
		return true
	}
	if !s.started.Load() {
		return false
	}
	for _, h := range s.handlers {
		if !h.HasSynced() {
			return false
		}
	}
	s.hasSynced.Store(true)
	return true
}

// Run schedules pods until ctx is done (with Config.Lead: while Lead
// lets it), then waits for everything it started (informers, bindings,
// event delivery) and returns. It may be called once. A failure to
// start, or Lead's error, is returned.
func (s *Scheduler) Run(ctx context.Context) error {
	if s.client == nil {
		return errors.New("scheduler: not created by New")
	}
	if !s.started.CompareAndSwap(false, true) {
		return errors.New("scheduler: Run called twice")
	}
	logger := klog.FromContext(ctx).WithName("scheduler")
	// stop ends the informers when Run returns before ctx is done (Lead
	// returned: the instance lost its Lease).
	ctx, stop := context.WithCancel(klog.NewContext(ctx, logger))
	defer stop()

	// Events go out as core/v1 Events, written by the broadcaster's own
	// goroutine; Shutdown stops it (last, after every event was handed to
	// it).
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	defer broadcaster.Shutdown()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: s.client.CoreV1().Events("")})
	s.events = broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: s.name})

	for _, f := range s.factories {
		f.Start(ctx.Done())
	}
	// Shutdown waits for the informers' goroutines, which end with ctx.
	defer func() {
		stop()
		for _, f := range s.factories {
			f.Shutdown()
		}
	}()
	var synced []cache.DoneChecker
	for _, h := range s.handlers {
		synced = append(synced, h.HasSyncedChecker())
	}
	if !cache.WaitFor(ctx, "", synced...) {
		return nil // ctx ended first
	}
	if s.lead != nil {
		logger.V(1).Info("Informers synced; waiting to lead", "schedulerName", s.name, "identity", s.identity)
		return s.lead(ctx, s.schedule)
	}
	logger.V(1).Info("Informers synced; scheduling", "schedulerName", s.name)
	s.schedule(ctx)
	return nil
}

// schedule runs the scheduling loop until ctx is done, then waits for
// the bindings and failure reports under way.
func (s *Scheduler) schedule(ctx context.Context) {
	klog.FromContext(ctx).V(1).Info("Scheduling", "schedulerName", s.name, "identity", s.identity)
	leading.Store(s)
	defer leading.CompareAndSwap(s, nil)
	var loops sync.WaitGroup
	loops.Go(func() { s.flushLoop(ctx) })
	loops.Go(func() {
		<-ctx.Done()
		s.queue.Close()
	})
	for {
		qp, ok := s.queue.Pop()
		if !ok {
			break
		}
		s.scheduleOne(ctx, qp)
	}
	loops.Wait()
	s.apiWG.Wait()
}

// flushLoop moves pods out of backoffQ every second and out of the
// unschedulable ones every 30 seconds, until ctx is done.
func (s *Scheduler) flushLoop(ctx context.Context) {
	backoff := s.clock.NewTicker(backoffFlushPeriod)
	defer backoff.Stop()
	leftover := s.clock.NewTicker(unschedulableFlushPeriod)
	defer leftover.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-backoff.C():
			s.queue.flushBackoffCompleted()
		case <-leftover.C():
			s.queue.flushUnschedulableLeftover()
		}
	}
}

// goAPI runs f on a goroutine of its own, waiting while ParallelAPICalls
// others are running; Run waits for them. It reports false, having run
// nothing, when ctx ends first. Only the scheduling loop calls it: a
// goroutine that holds a place must never wait for another (f makes its
// own follow-up calls itself, as kube-scheduler's binding goroutine
// calls its failure handler), or ParallelAPICalls such goroutines would
// wait for each other for ever.
func (s *Scheduler) goAPI(ctx context.Context, f func()) bool {
	if !s.acquireAPI(ctx) {
		return false
	}
	s.apiWG.Go(func() {
		defer s.releaseAPI()
		f()
	})
	return true
}

// acquireAPI takes one of the ParallelAPICalls places, waiting while all
// are taken; false when ctx ends first. releaseAPI gives it back.
func (s *Scheduler) acquireAPI(ctx context.Context) bool {
	select {
	case s.apiCalls <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s *Scheduler) releaseAPI() { <-s.apiCalls }

// podFrom returns the pod in an informer notification (unwrapping a
// tombstone), or nil.
func podFrom(obj any) *corev1.Pod {
	switch t := obj.(type) {
	case *corev1.Pod:
		return t
	case cache.DeletedFinalStateUnknown:
		p, _ := t.Obj.(*corev1.Pod)
		return p
	}
	return nil
}

func nodeFrom(obj any) *corev1.Node {
	switch t := obj.(type) {
	case *corev1.Node:
		return t
	case cache.DeletedFinalStateUnknown:
		n, _ := t.Obj.(*corev1.Node)
		return n
	}
	return nil
}

// newPodInformer is the scheduler's pod informer: all namespaces, with
// podSelector, keeping pods without their managedFields (as
// kube-scheduler's).
func newPodInformer(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	inf := coreinformers.NewFilteredPodInformer(c, metav1.NamespaceAll, resync, cache.Indexers{},
		func(o *metav1.ListOptions) { o.FieldSelector = podSelector })
	if err := inf.SetTransform(informertrim.ManagedFields); err != nil {
		panic(err) // only an informer already started refuses
	}
	return inf
}

// assignedOrTombstone selects the pods on a node, and every tombstone of
// a pod: its last known state may be stale, so the cache is asked to
// forget it either way (as kube-scheduler does).
func assignedOrTombstone(obj any) bool {
	switch t := obj.(type) {
	case *corev1.Pod:
		return t.Spec.NodeName != ""
	case cache.DeletedFinalStateUnknown:
		_, ok := t.Obj.(*corev1.Pod)
		return ok
	}
	return false
}

// unassignedAndOurs selects the pods waiting for a node whose
// spec.schedulerName is ours; a tombstone by its scheduler name alone.
func (s *Scheduler) unassignedAndOurs(obj any) bool {
	switch t := obj.(type) {
	case *corev1.Pod:
		return t.Spec.NodeName == "" && t.Spec.SchedulerName == s.name
	case cache.DeletedFinalStateUnknown:
		p, ok := t.Obj.(*corev1.Pod)
		return ok && p.Spec.SchedulerName == s.name
	}
	return false
}

func (s *Scheduler) addPendingPod(obj any) {
	if p := podFrom(obj); p != nil && p.DeletionTimestamp == nil {
		s.queue.Add(p)
	}
}

func (s *Scheduler) updatePendingPod(_, obj any) {
	p := podFrom(obj)
	switch {
	case p == nil:
	case p.DeletionTimestamp != nil:
		// Being deleted: no point in placing it.
		s.queue.Delete(p)
		s.stages.forget(p.UID)
	default:
		s.queue.Update(p)
	}
}

func (s *Scheduler) deletePendingPod(obj any) {
	if p := podFrom(obj); p != nil {
		s.queue.Delete(p)
		// Deleted, or bound (by this scheduler or another): its holds and
		// stages are over.
		s.stages.forget(p.UID)
	}
}

func (s *Scheduler) addAssignedPod(obj any) {
	if p := podFrom(obj); p != nil {
		s.cache.AddPod(p)
	}
}

func (s *Scheduler) updateAssignedPod(_, obj any) {
	if p := podFrom(obj); p != nil {
		s.cache.UpdatePod(p)
	}
}

func (s *Scheduler) deleteAssignedPod(obj any) {
	if p := podFrom(obj); p != nil {
		s.cache.RemovePod(p)
		s.stages.forget(p.UID)
		s.queue.Move(ClusterEvent{Resource: AssignedPod, ActionType: ActionDelete}, nil)
	}
}

func (s *Scheduler) addNode(obj any) {
	if n := nodeFrom(obj); n != nil {
		s.cache.AddNode(n)
		s.queue.Move(ClusterEvent{Resource: NodeResource, ActionType: ActionAdd}, nil)
	}
}

func (s *Scheduler) updateNode(oldObj, obj any) {
	old, n := nodeFrom(oldObj), nodeFrom(obj)
	if n == nil {
		return
	}
	s.cache.UpdateNode(n)
	if old == nil {
		return
	}
	if change := nodeChange(old, n); change != 0 {
		s.queue.Move(ClusterEvent{Resource: NodeResource, ActionType: change}, nil)
	}
}

func (s *Scheduler) deleteNode(obj any) {
	if n := nodeFrom(obj); n != nil {
		s.cache.RemoveNode(n)
	}
}

// nodeChange tells what changed in a node that could matter to a
// pending pod. Status heartbeats and conditions do not count.
func nodeChange(old, n *corev1.Node) ActionType {
	var a ActionType
	if !equality.Semantic.DeepEqual(old.Status.Allocatable, n.Status.Allocatable) {
		a |= ActionUpdateNodeAllocatable
	}
	if !equality.Semantic.DeepEqual(old.Labels, n.Labels) {
		a |= ActionUpdateNodeLabel
	}
	if !equality.Semantic.DeepEqual(old.Spec.Taints, n.Spec.Taints) || old.Spec.Unschedulable != n.Spec.Unschedulable {
		a |= ActionUpdateNodeTaint
	}
	return a
}

// now is the clock's time.
func (s *Scheduler) now() time.Time { return s.clock.Now() }
