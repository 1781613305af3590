package scheduler

import (
	"container/heap"
	"reflect"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
)

// How long a pod may sit among the unschedulable ones before it is tried
// again anyway, and how often that is checked (kube-scheduler's values):
// a cluster change the queue does not watch may have made room.
const (
	maxInUnschedulable       = 5 * time.Minute
	unschedulableFlushPeriod = 30 * time.Second
	backoffFlushPeriod       = time.Second
)

// schedulingQueue holds the pods waiting for a node, in three places, as
// kube-scheduler's queue does:
//
//   - activeQ: pods ready to be tried, a heap popped in this order:
//     higher spec.priority first; among equal priorities, the pod that
//     entered the queue earlier (a new pod: when it was added; a pod that
//     failed: when its last attempt ended); then the order of arrival.
//   - backoffQ: pods that failed and wait out their backoff, ordered by the
//     time it ends. The backoff doubles with every failed attempt:
//     InitialBackoff, 2×, 4×... up to MaxBackoff (attempts that failed on
//     an error count separately from those that found no node; the
//     current kind of failure decides). A flush every second moves the
//     pods whose backoff has ended to activeQ.
//   - unschedulable: pods no node could take. They stay until a cluster
//     change could help them, then move to backoffQ (still backing off) or
//     activeQ. Which changes help depends on the plugins that rejected the
//     pod (EnqueueExtensions): a new node; a node with more allocatable,
//     other labels, other taints or uncordoned; a bound pod deleted
//     (room freed). A pod left there for five minutes is moved anyway.
//
// A pod being scheduled (popped, not yet finished) is "in flight". If a
// cluster change arrives meanwhile and the attempt then fails, the pod goes
// to backoffQ instead of unschedulable, so the change is not missed.
// Pods with scheduling gates wait aside until an update removes the gates.
// A deleted pod leaves the queue (and is not put back if it was in
// flight); a pod bound by someone else leaves it too, since the informer
// reports it deleted from the unscheduled pods.
//
// Safe for concurrent use.
type schedulingQueue struct {
	mu     sync.Mutex
	cond   *sync.Cond
	clock  clock.Clock
	closed bool

	initialBackoff, maxBackoff time.Duration
	// events are the cluster changes each filter plugin registered; a
	// plugin listed with none reacts to every change.
	events map[string][]ClusterEvent

	active        podHeap
	backoff       podHeap
	unschedulable map[types.UID]*queuedPod
	gated         map[types.UID]*queuedPod
	// queued indexes every pod in one of the four places above.
	queued   map[types.UID]*queuedPod
	inFlight map[types.UID]*inFlight

	seq uint64
	// cycle counts Pops; moveCycle is the cycle of the last cluster change
	// that moved pods.
	cycle, moveCycle int64
}

// where a queued pod is.
type location int

const (
	nowhere location = iota
	inActive
	inBackoff
	inUnschedulable
	inGated
)

// queuedPod is a pod in the queue with its scheduling history.
type queuedPod struct {
	pod *corev1.Pod
	// timestamp is when the pod entered the queue or its last attempt
	// ended; backoff counts from it.
	timestamp time.Time
	seq       uint64
	// attempts counts Pops.
	attempts int
	// unschedulableCount and consecutiveErrors count failed attempts of
	// each kind.
	unschedulableCount, consecutiveErrors int
	// rejectors are the plugins that rejected the pod in its last attempt.
	rejectors     []string
	backoffExpiry time.Time
	popCycle      int64
	loc           location
	index         int // in its heap
}

type inFlight struct {
	deleted bool
	updated bool
}

func newSchedulingQueue(clk clock.Clock, initialBackoff, maxBackoff time.Duration, events map[string][]ClusterEvent) *schedulingQueue {
	q := &schedulingQueue{
		clock:          clk,
		initialBackoff: initialBackoff,
		maxBackoff:     maxBackoff,
		events:         events,
		unschedulable:  map[types.UID]*queuedPod{},
		gated:          map[types.UID]*queuedPod{},
		queued:         map[types.UID]*queuedPod{},
		inFlight:       map[types.UID]*inFlight{},
	}
	q.cond = sync.NewCond(&q.mu)
	q.active.less = activeLess
	q.backoff.less = func(a, b *queuedPod) bool {
		if !a.backoffExpiry.Equal(b.backoffExpiry) {
			return a.backoffExpiry.Before(b.backoffExpiry)
		}
		return activeLess(a, b)
	}
	return q
}

// activeLess is activeQ's order: priority, then queue time, then arrival.
func activeLess(a, b *queuedPod) bool {
	if pa, pb := podPriority(a.pod), podPriority(b.pod); pa != pb {
		return pa > pb
	}
	if !a.timestamp.Equal(b.timestamp) {
		return a.timestamp.Before(b.timestamp)
	}
	return a.seq < b.seq
}

func isGated(p *corev1.Pod) bool { return len(p.Spec.SchedulingGates) != 0 }

// find returns the queued pod with uid, wherever it waits.
func (q *schedulingQueue) find(uid types.UID) *queuedPod { return q.queued[uid] }

// Add queues a new pod.
func (q *schedulingQueue) Add(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.inFlight[pod.UID]; ok || q.find(pod.UID) != nil {
		q.updateLocked(pod)
		return
	}
	qp := &queuedPod{pod: pod, timestamp: q.clock.Now()}
	if isGated(pod) {
		q.toGated(qp)
		return
	}
	q.toActive(qp)
}

// Update replaces a queued pod's object. A pod the queue does not know is
// added; an unschedulable pod whose spec or metadata changed is moved, as
// the change may let it fit; a gated pod whose gates are gone is activated.
func (q *schedulingQueue) Update(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.updateLocked(pod)
}

func (q *schedulingQueue) updateLocked(pod *corev1.Pod) {
	if f, ok := q.inFlight[pod.UID]; ok {
		// The attempt reads its own copy; Requeue gets the current one.
		f.updated = true
		return
	}
	qp := q.find(pod.UID)
	if qp == nil {
		qp = &queuedPod{pod: pod, timestamp: q.clock.Now()}
		if isGated(pod) {
			q.toGated(qp)
		} else {
			q.toActive(qp)
		}
		return
	}
	old := qp.pod
	qp.pod = pod
	switch qp.loc {
	case inActive:
		heap.Fix(&q.active, qp.index)
	case inBackoff:
		heap.Fix(&q.backoff, qp.index)
	case inGated:
		if !isGated(pod) {
			delete(q.gated, pod.UID)
			q.toActive(qp)
		}
	case inUnschedulable:
		if specOrMetaChanged(old, pod) {
			q.moveLocked(qp)
		}
	}
}

// specOrMetaChanged reports whether anything but the status and the
// bookkeeping fields changed.
func specOrMetaChanged(a, b *corev1.Pod) bool {
	strip := func(p *corev1.Pod) *corev1.Pod {
		c := p.DeepCopy()
		c.ResourceVersion, c.Generation, c.ManagedFields = "", 0, nil
		c.Status = corev1.PodStatus{}
		return c
	}
	return !reflect.DeepEqual(strip(a), strip(b))
}

// Delete removes a pod from the queue; a pod in flight is not put back.
func (q *schedulingQueue) Delete(pod *corev1.Pod) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if f, ok := q.inFlight[pod.UID]; ok {
		f.deleted = true
	}
	qp := q.find(pod.UID)
	if qp == nil {
		return
	}
	switch qp.loc {
	case inActive:
		heap.Remove(&q.active, qp.index)
	case inBackoff:
		heap.Remove(&q.backoff, qp.index)
	case inUnschedulable:
		delete(q.unschedulable, pod.UID)
	case inGated:
		delete(q.gated, pod.UID)
	}
	qp.loc = nowhere
	delete(q.queued, pod.UID)
}

// Pop waits for a pod in activeQ and returns it, in flight; false once the
// queue is closed.
func (q *schedulingQueue) Pop() (*queuedPod, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.active.Len() == 0 && !q.closed {
		q.cond.Wait()
	}
	if q.closed {
		return nil, false
	}
	qp := heap.Pop(&q.active).(*queuedPod)
	qp.loc = nowhere
	delete(q.queued, qp.pod.UID)
	qp.attempts++
	q.cycle++
	qp.popCycle = q.cycle
	q.inFlight[qp.pod.UID] = &inFlight{}
	return qp, true
}

// Done ends a successful attempt: the pod leaves the queue for good.
func (q *schedulingQueue) Done(uid types.UID) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.inFlight, uid)
}

// Requeue ends a failed attempt. pod is the pod's current object (nil if
// it is gone); rejectors are the plugins that rejected it, empty when the
// attempt failed on an error. Errors go to backoffQ; a pod no node took
// goes to unschedulable, or to backoffQ when a cluster change arrived
// during the attempt.
func (q *schedulingQueue) Requeue(qp *queuedPod, pod *corev1.Pod, rejectors []string, isError bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := q.inFlight[qp.pod.UID]
	delete(q.inFlight, qp.pod.UID)
	if pod == nil || (f != nil && f.deleted) {
		return
	}
	if q.find(pod.UID) != nil {
		// Re-added meanwhile (should not happen: it was in flight).
		return
	}
	qp.pod = pod
	if isError {
		qp.consecutiveErrors++
		qp.rejectors = nil
	} else {
		qp.unschedulableCount++
		qp.consecutiveErrors = 0
		qp.rejectors = rejectors
	}
	qp.timestamp = q.clock.Now()
	qp.backoffExpiry = qp.timestamp.Add(q.backoffDuration(qp))
	switch {
	case isGated(pod):
		q.toGated(qp)
	case isError, q.moveCycle >= qp.popCycle, f != nil && f.updated:
		q.toBackoffOrActive(qp)
	default:
		qp.loc = inUnschedulable
		q.unschedulable[pod.UID] = qp
		q.queued[pod.UID] = qp
	}
}

// backoffDuration is InitialBackoff doubled for every failed attempt after
// the first, up to MaxBackoff.
func (q *schedulingQueue) backoffDuration(qp *queuedPod) time.Duration {
	n := qp.unschedulableCount
	if qp.consecutiveErrors > 0 {
		n = qp.consecutiveErrors
	}
	if n == 0 || q.maxBackoff == 0 {
		return 0
	}
	d := q.initialBackoff
	for i := 1; i < n && d < q.maxBackoff; i++ {
		d *= 2
	}
	return min(d, q.maxBackoff)
}

// Move moves the unschedulable pods that ev could help (see the type's
// comment) to backoffQ or activeQ, except those for which skip is true.
func (q *schedulingQueue) Move(ev ClusterEvent, skip func(*corev1.Pod) bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.moveCycle = q.cycle
	for _, qp := range q.unschedulable {
		if skip != nil && skip(qp.pod) {
			continue
		}
		if q.helps(ev, qp.rejectors) {
			q.moveLocked(qp)
		}
	}
}

// helps reports whether ev could undo a rejection by the plugins.
func (q *schedulingQueue) helps(ev ClusterEvent, rejectors []string) bool {
	if len(rejectors) == 0 {
		return true
	}
	for _, p := range rejectors {
		registered, known := q.events[p]
		if !known || registered == nil {
			return true
		}
		for _, e := range registered {
			if e.Match(ev) {
				return true
			}
		}
	}
	return false
}

func (q *schedulingQueue) moveLocked(qp *queuedPod) {
	delete(q.unschedulable, qp.pod.UID)
	q.toBackoffOrActive(qp)
}

func (q *schedulingQueue) toBackoffOrActive(qp *queuedPod) {
	if q.clock.Now().Before(qp.backoffExpiry) {
		qp.loc = inBackoff
		heap.Push(&q.backoff, qp)
		q.queued[qp.pod.UID] = qp
		return
	}
	q.toActive(qp)
}

func (q *schedulingQueue) toActive(qp *queuedPod) {
	q.seq++
	qp.seq = q.seq
	qp.loc = inActive
	heap.Push(&q.active, qp)
	q.queued[qp.pod.UID] = qp
	q.cond.Signal()
}

func (q *schedulingQueue) toGated(qp *queuedPod) {
	qp.loc = inGated
	q.gated[qp.pod.UID] = qp
	q.queued[qp.pod.UID] = qp
}

// flushBackoffCompleted moves the pods whose backoff has ended to activeQ.
func (q *schedulingQueue) flushBackoffCompleted() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for q.backoff.Len() > 0 {
		qp := q.backoff.items[0]
		if now.Before(qp.backoffExpiry) {
			return
		}
		heap.Pop(&q.backoff)
		q.toActive(qp)
	}
}

// flushUnschedulableLeftover moves the pods unschedulable for longer than
// maxInUnschedulable.
func (q *schedulingQueue) flushUnschedulableLeftover() {
	q.mu.Lock()
	defer q.mu.Unlock()
	now := q.clock.Now()
	for _, qp := range q.unschedulable {
		if now.Sub(qp.timestamp) > maxInUnschedulable {
			q.moveLocked(qp)
		}
	}
}

// Close wakes Pop for good.
func (q *schedulingQueue) Close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	q.cond.Broadcast()
}

// queueContents lists pod names by place; active and backoff in the order
// they would leave. For tests and debugging.
type queueContents struct {
	Active, Backoff, Unschedulable, Gated []string
}

func (q *schedulingQueue) contents() queueContents {
	q.mu.Lock()
	defer q.mu.Unlock()
	ordered := func(h *podHeap) []string {
		items := slices.Clone(h.items)
		slices.SortFunc(items, func(a, b *queuedPod) int {
			if h.less(a, b) {
				return -1
			}
			if h.less(b, a) {
				return 1
			}
			return 0
		})
		var out []string
		for _, qp := range items {
			out = append(out, qp.pod.Name)
		}
		return out
	}
	names := func(m map[types.UID]*queuedPod) []string {
		var out []string
		for _, qp := range m {
			out = append(out, qp.pod.Name)
		}
		slices.Sort(out)
		return out
	}
	return queueContents{Active: ordered(&q.active), Backoff: ordered(&q.backoff), Unschedulable: names(q.unschedulable), Gated: names(q.gated)}
}

// podHeap is a container/heap of queued pods.
type podHeap struct {
	items []*queuedPod
	less  func(a, b *queuedPod) bool
}

func (h *podHeap) Len() int           { return len(h.items) }
func (h *podHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *podHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index, h.items[j].index = i, j
}
func (h *podHeap) Push(x any) {
	qp := x.(*queuedPod)
	qp.index = len(h.items)
	h.items = append(h.items, qp)
}
func (h *podHeap) Pop() any {
	n := len(h.items)
	qp := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	qp.index = -1
	return qp
}
