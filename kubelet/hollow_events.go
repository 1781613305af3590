package kubelet

import (
	"errors"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
)

// HollowEventGroupSize is how many hollow kubelets of one host share an
// event broadcaster.
const HollowEventGroupSize = 100

// hollowEvents are the host's event broadcasters. Upstream every kubelet
// has its own (client-go's record.NewBroadcaster: a queue of 1,000
// events, a watcher's channel as long, and a correlator), about 70 KB
// before its first event: 700 MB for 10,000 hollow nodes. Here up to
// HollowEventGroupSize kubelets share one, each with its own recorder
// (its source: component kubelet, host its node) and its own sink (its
// client, as its node): the correlator's records are keyed by source
// host, so each kubelet's events are aggregated and rate-limited as its
// own broadcaster would, but within one cache of 4,096 records per
// group, and the group's events are written one at a time, in order, so
// that a write that waits delays the others of the group.
type hollowEvents struct {
	size   int // kubelets per group; 0: HollowEventGroupSize
	mu     sync.Mutex
	groups []*eventGroup
}

// eventGroup is one shared broadcaster and the sinks of its kubelets by
// node name.
type eventGroup struct {
	broadcaster record.EventBroadcaster
	sinks       map[string]*eventSink
}

// join gives node's kubelet a recorder on a group with room, writing its
// events through sink, and the function that takes it out of the group
// (waiting for a write of its under way; the last to leave shuts the
// broadcaster down).
func (e *hollowEvents) join(node string, sink *eventSink) (record.EventRecorder, func()) {
	e.mu.Lock()
	defer e.mu.Unlock()
	g := e.groupWithRoom()
	g.sinks[node] = sink
	return nodeRecorder(g.broadcaster, node), func() { e.leave(g, node, sink) }
}

func (e *hollowEvents) groupWithRoom() *eventGroup {
	size := e.size
	if size <= 0 {
		size = HollowEventGroupSize
	}
	for _, g := range e.groups {
		if len(g.sinks) < size {
			return g
		}
	}
	g := &eventGroup{broadcaster: record.NewBroadcaster(), sinks: map[string]*eventSink{}}
	g.broadcaster.StartRecordingToSink(groupSink{e, g})
	e.groups = append(e.groups, g)
	return g
}

func (e *hollowEvents) leave(g *eventGroup, node string, sink *eventSink) {
	e.mu.Lock()
	if g.sinks[node] == sink {
		delete(g.sinks, node)
	}
	empty := len(g.sinks) == 0
	if empty {
		for i := range e.groups {
			if e.groups[i] == g {
				e.groups = append(e.groups[:i], e.groups[i+1:]...)
				break
			}
		}
	}
	e.mu.Unlock()
	sink.close()
	if empty {
		g.broadcaster.Shutdown()
	}
}

// sink is the sink of the kubelet whose node is host, if it is still in
// the group.
func (e *hollowEvents) sink(g *eventGroup, host string) (*eventSink, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if s := g.sinks[host]; s != nil {
		return s, nil
	}
	// Not a transport error: the broadcaster drops the event rather than
	// retrying it (its kubelet has stopped).
	return nil, &rest.RequestConstructionError{Err: fmt.Errorf("no kubelet of node %q on this host writes events", host)}
}

// groupSink writes each event of a group through the sink of the kubelet
// that recorded it (the event's source host).
type groupSink struct {
	e *hollowEvents
	g *eventGroup
}

func (s groupSink) Create(ev *corev1.Event) (*corev1.Event, error) {
	return s.write(ev, func(sink *eventSink) (*corev1.Event, error) { return sink.Create(ev) })
}

func (s groupSink) Update(ev *corev1.Event) (*corev1.Event, error) {
	return s.write(ev, func(sink *eventSink) (*corev1.Event, error) { return sink.Update(ev) })
}

func (s groupSink) Patch(ev *corev1.Event, data []byte) (*corev1.Event, error) {
	return s.write(ev, func(sink *eventSink) (*corev1.Event, error) { return sink.Patch(ev, data) })
}

// write writes ev with the sink of its kubelet. An event whose kubelet
// has left or is stopping (its sink closed, its context done) fails with
// an error the broadcaster does not retry: a retry sleeps up to 10 s, and
// would hold back the events of the whole group.
func (s groupSink) write(ev *corev1.Event, f func(*eventSink) (*corev1.Event, error)) (*corev1.Event, error) {
	sink, err := s.e.sink(s.g, ev.Source.Host)
	if err != nil {
		return nil, err
	}
	out, err := f(sink)
	if err != nil && (errors.Is(err, errSinkClosed) || sink.ctx.Err() != nil) {
		return nil, &rest.RequestConstructionError{Err: err}
	}
	return out, err
}
