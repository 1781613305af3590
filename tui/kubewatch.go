package tui

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/internal/flow"
)

// kubeEvent is one core/v1 Event, as the event log shows it.
type kubeEvent struct {
	Time    time.Time
	Type    string // Normal, Warning
	Reason  string
	Object  string // pod/nginx
	Message string
	Count   int32
}

// podInfo is one pod in the cluster view.
type podInfo struct {
	Namespace, Name, Phase string
}

// nodeInfo is one node in the cluster view, with what its pods request.
type nodeInfo struct {
	Name              string
	Ready             bool
	CPU, Memory       int64 // allocatable: millicores, bytes
	ReqCPU, ReqMemory int64 // requested by its pods
	Pods              []podInfo
}

// clusterSnapshot is the cluster view's data.
type clusterSnapshot struct {
	Nodes   []nodeInfo
	Pending []podInfo // pods bound to no node
}

// eventLogBuffer bounds the events waiting for the TUI; when the TUI
// falls behind, the newest events are dropped (the log says so).
const eventLogBuffer = 256

// kubeWatch is the TUI's own view of the cluster through the API: an
// informer on core/v1 Events (the event log) and informers on nodes and
// pods (the cluster view). Its goroutines are owned by stop, which
// waits for them.
type kubeWatch struct {
	ctx     context.Context
	cancel  context.CancelFunc
	factory informers.SharedInformerFactory

	events  chan kubeEvent
	dirty   chan struct{} // one pending "nodes or pods changed"
	dropped atomic.Int64

	nodes  cache.Indexer
	pods   cache.Indexer
	synced []cache.DoneChecker
}

// startKubeWatch starts the informers of client.
func startKubeWatch(client kubernetes.Interface) *kubeWatch {
	ctx, cancel := context.WithCancel(context.Background())
	f := informers.NewSharedInformerFactory(client, 0)
	w := &kubeWatch{
		ctx:     ctx,
		cancel:  cancel,
		factory: f,
		events:  make(chan kubeEvent, eventLogBuffer),
		dirty:   make(chan struct{}, 1),
	}
	evInf := f.Core().V1().Events().Informer()
	nodeInf := f.Core().V1().Nodes().Informer()
	podInf := f.Core().V1().Pods().Informer()
	w.nodes, w.pods = nodeInf.GetIndexer(), podInf.GetIndexer()
	w.synced = []cache.DoneChecker{nodeInf.HasSyncedChecker(), podInf.HasSyncedChecker()}
	onEvent := func(obj any) {
		ev, ok := obj.(*corev1.Event)
		if !ok {
			return
		}
		select {
		case w.events <- toKubeEvent(ev):
		default:
			w.dropped.Add(1)
		}
	}
	_, _ = evInf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    onEvent,
		UpdateFunc: func(_, obj any) { onEvent(obj) },
	})
	mark := cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { w.poke() },
		UpdateFunc: func(any, any) { w.poke() },
		DeleteFunc: func(any) { w.poke() },
	}
	_, _ = nodeInf.AddEventHandler(mark)
	_, _ = podInf.AddEventHandler(mark)
	f.Start(ctx.Done())
	return w
}

func (w *kubeWatch) poke() {
	select {
	case w.dirty <- struct{}{}:
	default:
	}
}

// stop ends the informers and waits for their goroutines. Safe on nil.
func (w *kubeWatch) stop() {
	if w == nil {
		return
	}
	w.cancel()
	w.factory.Shutdown()
}

func toKubeEvent(ev *corev1.Event) kubeEvent {
	t := ev.LastTimestamp.Time
	if t.IsZero() {
		t = ev.EventTime.Time
	}
	if t.IsZero() {
		t = ev.CreationTimestamp.Time
	}
	obj := ev.InvolvedObject.Name
	if k := ev.InvolvedObject.Kind; k != "" {
		obj = fmt.Sprintf("%s/%s", lowerKind(k), obj)
	}
	// Anyone who may create Events writes these texts: no control
	// sequences reach the screen.
	return kubeEvent{Time: t, Type: flow.Printable(ev.Type), Reason: flow.Printable(ev.Reason), Object: flow.Printable(obj),
		Message: flow.Printable(ev.Message), Count: ev.Count}
}

func lowerKind(k string) string {
	b := []byte(k)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// snapshot reads the cluster view's data from the informers' caches.
func (w *kubeWatch) snapshot() clusterSnapshot {
	byNode := map[string]*nodeInfo{}
	var snap clusterSnapshot
	for _, o := range w.nodes.List() {
		n, ok := o.(*corev1.Node)
		if !ok {
			continue
		}
		ni := nodeInfo{Name: n.Name, CPU: n.Status.Allocatable.Cpu().MilliValue(), Memory: n.Status.Allocatable.Memory().Value()}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady {
				ni.Ready = c.Status == corev1.ConditionTrue
			}
		}
		snap.Nodes = append(snap.Nodes, ni)
	}
	sort.Slice(snap.Nodes, func(i, j int) bool { return snap.Nodes[i].Name < snap.Nodes[j].Name })
	for i := range snap.Nodes {
		byNode[snap.Nodes[i].Name] = &snap.Nodes[i]
	}
	pods := w.pods.List()
	sort.Slice(pods, func(i, j int) bool {
		a, b := pods[i].(*corev1.Pod), pods[j].(*corev1.Pod)
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	for _, o := range pods {
		p, ok := o.(*corev1.Pod)
		if !ok {
			continue
		}
		pi := podInfo{Namespace: p.Namespace, Name: p.Name, Phase: string(p.Status.Phase)}
		if p.DeletionTimestamp != nil {
			pi.Phase = "Terminating"
		}
		n, ok := byNode[p.Spec.NodeName]
		if !ok {
			snap.Pending = append(snap.Pending, pi)
			continue
		}
		n.Pods = append(n.Pods, pi)
		if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		cpu, mem := podRequests(p)
		n.ReqCPU += cpu
		n.ReqMemory += mem
	}
	return snap
}

// podRequests sums the containers' cpu (millicores) and memory (bytes)
// requests, as the scheduler counts them (init containers aside).
func podRequests(p *corev1.Pod) (cpu, mem int64) {
	for _, c := range p.Spec.Containers {
		if q, ok := c.Resources.Requests[corev1.ResourceCPU]; ok {
			cpu += q.MilliValue()
		}
		if q, ok := c.Resources.Requests[corev1.ResourceMemory]; ok {
			mem += q.Value()
		}
	}
	return cpu, mem
}

// formatCPU and formatMem print quantities the way kubectl does.
func formatCPU(milli int64) string {
	return resource.NewMilliQuantity(milli, resource.DecimalSI).String()
}

func formatMem(b int64) string {
	return resource.NewQuantity(b, resource.BinarySI).String()
}

// nextEvents waits for core/v1 events and returns those waiting (at
// most a buffer's worth), or nil once the watch is stopped.
func (w *kubeWatch) nextEvents() []kubeEvent {
	select {
	case ev := <-w.events:
		out := []kubeEvent{ev}
		for len(out) < eventLogBuffer {
			select {
			case ev := <-w.events:
				out = append(out, ev)
			default:
				return out
			}
		}
		return out
	case <-w.ctx.Done():
		return nil
	}
}

// nextSnapshot waits until nodes or pods changed and returns the new
// cluster view, or false once the watch is stopped.
func (w *kubeWatch) nextSnapshot() (clusterSnapshot, bool) {
	select {
	case <-w.dirty:
		return w.snapshot(), true
	case <-w.ctx.Done():
		return clusterSnapshot{}, false
	}
}
