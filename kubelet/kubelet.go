package kubelet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"k8s.io/utils/clock"
)

// UserPrefix and Group are a kubelet's identity: system:node:<node> in
// system:nodes.
const (
	UserPrefix = "system:node:"
	Group      = "system:nodes"
)

// Kubelet is the fake kubelet of one node.
type Kubelet struct {
	cfg   Config
	clock clock.WithTicker
	scale scaler
	rt    *fakeRuntime
	user  string
	srv   *kubeletServer // nil without Config.Serving

	started  atomic.Bool
	recorder record.EventRecorder
	nodeUID  atomic.Value          // types.UID, once registered
	lease    *coordinationv1.Lease // the lease loop's
	// leaseFailures counts the lease loop's failed renewals in a row.
	leaseFailures int
	// lastStatusReport is when the Node's status was last sent (the
	// registration's, then the status loop's).
	lastStatusReport time.Time

	mu       sync.Mutex
	ctx      context.Context // the pod workers'
	closing  bool
	workers  map[types.UID]*podWorker
	finished map[types.UID]bool // pods whose worker is done, until they are deleted
	pods     cache.Indexer      // the pod informer's store, for the server
	wg       sync.WaitGroup     // the pod workers
	// mirrorKick asks the mirror loop to look again (capacity 1).
	mirrorKick chan struct{}
}

// New returns a kubelet for cfg (validated; cfg is copied). With
// cfg.Serving it binds its server's listener, so that ServingPort is
// known before Run; a kubelet that is never Run must then be Closed.
func New(cfg *Config) (*Kubelet, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	k := &Kubelet{
		cfg:      *cfg,
		clock:    cfg.Clock,
		scale:    scaler{speed: cfg.Speed},
		user:     UserPrefix + cfg.Node.Name,
		workers:  map[types.UID]*podWorker{},
		finished: map[types.UID]bool{},

		mirrorKick: make(chan struct{}, 1),
	}
	if k.clock == nil {
		k.clock = clock.RealClock{}
	}
	var err error
	if k.rt, err = newRuntime(cfg.Node.Name, cfg.NodeIP, cfg.PodCIDR); err != nil {
		return nil, err
	}
	k.rt.services = apiServices{client: cfg.Client}
	k.rt.objects = apiObjects{client: cfg.Client}
	if cfg.Images != nil {
		k.rt.registry = cfg.Images
	}
	if cfg.Serving != nil && (cfg.Hollow == nil || cfg.Hollow.serving == nil) {
		if k.srv, err = listen(cfg.Serving); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// NodeName is the name of the kubelet's node.
func (k *Kubelet) NodeName() string { return k.cfg.Node.Name }

// Run registers the node, keeps its lease and status fresh, and runs the
// pods bound to it, until ctx is done; then it stops its goroutines,
// waits for them, and returns nil. Stopping leaves the pods as they are
// (a kubelet that stops does not stop its containers): a new kubelet for
// the same node adopts them. Run may be called once.
func (k *Kubelet) Run(ctx context.Context) error {
	if !k.started.CompareAndSwap(false, true) {
		return errors.New("kubelet: Run called twice")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	logger := klog.FromContext(ctx).WithValues("node", k.cfg.Node.Name)
	ctx = klog.NewContext(ctx, logger)

	stopEvents := k.startEvents(ctx)
	defer stopEvents()

	if k.srv != nil {
		var served sync.WaitGroup
		served.Add(1)
		go func() {
			defer served.Done()
			k.srv.serve(ctx, k.handler())
		}()
		defer func() {
			cancel() // the server stops with the kubelet
			served.Wait()
		}()
	}

	if err := k.registerNode(ctx); err != nil {
		return nil // ctx is done
	}

	var loops sync.WaitGroup
	loops.Add(3)
	go func() {
		defer loops.Done()
		k.mirrorLoop(ctx)
	}()
	go func() {
		defer loops.Done()
		k.leaseLoop(ctx)
	}()
	go func() {
		defer loops.Done()
		k.statusLoop(ctx)
	}()

	k.mu.Lock()
	k.ctx = ctx
	k.mu.Unlock()
	stopPods := k.watchPods(ctx)
	logger.Info("Kubelet started", "podCIDR", k.cfg.PodCIDR, "nodeIP", k.cfg.NodeIP, "speed", k.cfg.Speed, "hollow", k.cfg.Hollow != nil)

	<-ctx.Done()
	stopPods() // no more handler calls after this
	k.mu.Lock()
	k.closing = true
	k.mu.Unlock()
	k.wg.Wait()
	loops.Wait()
	logger.Info("Kubelet stopped")
	return nil
}

// startEvents makes the kubelet's event recorder and returns the function
// that stops it: its own broadcaster writing through its client, as
// upstream's kubelet, or, for a hollow kubelet, a place in one of its
// host's (hollowEvents).
func (k *Kubelet) startEvents(ctx context.Context) (stop func()) {
	sink := newEventSink(ctx, k.cfg.Client.CoreV1().Events(""))
	if h := k.cfg.Hollow; h != nil {
		var leave func()
		k.recorder, leave = h.events.join(k.cfg.Node.Name, sink)
		return leave
	}
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(sink)
	k.recorder = nodeRecorder(broadcaster, k.cfg.Node.Name)
	return func() {
		broadcaster.Shutdown()
		sink.close()
	}
}

// nodeRecorder is the recorder of node's kubelet on broadcaster: its
// events' source is component kubelet, host the node.
func nodeRecorder(broadcaster record.EventBroadcaster, node string) record.EventRecorder {
	return broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "kubelet", Host: node})
}

// watchPods starts the source of the kubelet's pods and returns the
// function that stops it, after which no handler call is under way: its
// own informer of the pods bound to its node (fieldSelector
// spec.nodeName=<node>, as upstream's kubelet watches), or, for a hollow
// kubelet, its place in the host's informer of all pods.
func (k *Kubelet) watchPods(ctx context.Context) (stop func()) {
	if h := k.cfg.Hollow; h != nil {
		h.attach(k)
		return func() { h.detach(k) }
	}
	selector := fields.OneTermEqualSelector("spec.nodeName", k.cfg.Node.Name).String()
	factory := informers.NewSharedInformerFactoryWithOptions(k.cfg.Client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = selector }))
	informer := factory.Core().V1().Pods().Informer()
	k.mu.Lock()
	k.pods = informer.GetIndexer()
	k.mu.Unlock()
	if _, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.podChanged(obj) },
		UpdateFunc: func(_, obj any) { k.podChanged(obj) },
		DeleteFunc: k.podDeleted,
	}); err != nil {
		klog.FromContext(ctx).Error(err, "Cannot watch pods")
	}
	done := make(chan struct{})
	factory.Start(done)
	return func() {
		close(done)
		factory.Shutdown()
	}
}

// heartbeatJitter is the jitter factor of the lease and node status
// loops: each wait is up to 4% longer than its period, as upstream's
// (wait.JitterUntil with 0.04 in the kubelet's status loop and the lease
// controller), so that nodes started together drift apart.
const heartbeatJitter = 0.04

// leaseLoop renews the node lease every quarter of its duration (plus
// jitter); a failed renewal is retried sooner (200ms doubling up to the interval).
func (k *Kubelet) leaseLoop(ctx context.Context) {
	interval := k.cfg.LeaseDuration / 4
	retry := 200 * time.Millisecond
	for {
		wait := jittered(interval)
		if err := k.renewLease(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			klog.FromContext(ctx).Error(err, "Failed to renew the node lease")
			wait, retry = min(retry, interval), min(2*retry, interval)
		} else {
			retry = 200 * time.Millisecond
		}
		t := k.clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
	}
}

// statusLoop checks the node's status every StatusUpdateFrequency (plus
// jitter) and reports it when it changed or is due (updateNodeStatus).
func (k *Kubelet) statusLoop(ctx context.Context) {
	for {
		t := k.clock.NewTimer(jittered(k.cfg.StatusUpdateFrequency))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		if err := k.updateNodeStatus(ctx); err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).Error(err, "Unable to update node status")
		}
	}
}

// jittered is d made up to heartbeatJitter longer, at random.
func jittered(d time.Duration) time.Duration { return wait.Jitter(d, heartbeatJitter) }

// podChanged hands a pod's new version to its worker, starting one for a
// pod the kubelet has not seen. Called by the informer; does not block.
func (k *Kubelet) podChanged(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok || pod.Spec.NodeName != k.cfg.Node.Name {
		return
	}
	if isMirrorPod(pod) && pod.DeletionTimestamp != nil {
		// The static pod goes on; its mirror is made again.
		k.kickMirrors()
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closing || k.ctx == nil || k.finished[pod.UID] {
		return
	}
	w := k.workers[pod.UID]
	if w == nil {
		if p := pod.Status.Phase; (p == corev1.PodSucceeded || p == corev1.PodFailed) && pod.DeletionTimestamp == nil {
			return // nothing will run again
		}
		w = newPodWorker(k, pod)
		k.workers[pod.UID] = w
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			w.run(k.ctx)
			k.mu.Lock()
			defer k.mu.Unlock()
			delete(k.workers, pod.UID)
			if !w.isRemoved() && k.ctx.Err() == nil {
				k.finished[pod.UID] = true
			}
		}()
	}
	w.update(pod)
}

// podDeleted tells a pod's worker that the pod is gone from the API.
func (k *Kubelet) podDeleted(obj any) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	k.rt.logs.forget(pod.UID)
	if isMirrorPod(pod) {
		k.kickMirrors()
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.finished, pod.UID)
	if w := k.workers[pod.UID]; w != nil {
		w.remove()
	}
}
