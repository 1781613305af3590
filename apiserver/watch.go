package apiserver

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/apiserver/storage"
)

// serveWatch streams a watch the way kube-apiserver does over HTTP/1.1 and
// HTTP/2: status 200 and the headers at once, then one JSON object
// {"type":...,"object":...} per event, flushed when no other event waits,
// as kube-apiserver does (one chunk per event, or per burst of events,
// with HTTP/1.1 chunked encoding). The stream ends cleanly
// after its timeout (see watchTimeout: timeoutSeconds, or a random 30-60
// minutes), when the client goes away, or after an ERROR event.
//
// The endpoint's stageFrame hook sees each frame before it is written: a
// frame that is a stage of a pod's creation (3 for the scheduler, 6 for
// the pod's kubelet; see Server.stageFrame) may be held at the gate, and
// is recorded with its exact bytes; the time held does not count towards
// the watch's length. An event from the watch cache is serialized once
// for all the watchers that write it in the same form (watchFrameOf).
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, e *Endpoint, namespace string, opts *metainternalversion.ListOptions) error {
	o, err := negotiate(r, asTable, asPartial)
	if err == nil && o.mediaType == mediaYAML {
		// YAML has no streaming form.
		err = NotAcceptableMsg("only the following media types are accepted: " + mediaJSON + ", " + mediaProtobuf)
	}
	if err != nil {
		return err
	}
	o.table = e.res.TableConvertor()
	timeout, err := watchTimeout(opts.TimeoutSeconds, s.cfg.MinRequestTimeout, rand.Float64())
	if err != nil {
		return err
	}
	// The watch's timeout and the request's end both end it through
	// ctx, which ends the watcher's stream of events too.
	ctx, cancel := context.WithCancel(s.watchContext(r, w))
	defer cancel()
	wi, err := e.store.Watch(ctx, namespace, opts)
	if err != nil {
		return err
	}
	defer wi.Stop()

	rc := http.NewResponseController(w)
	ct := contentType(o)
	if o.mediaType == mediaProtobuf {
		ct += ";stream=watch"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusOK)
	if err := rc.Flush(); err != nil {
		return nil
	}
	timer := request.NewPausableTimer(timeout, cancel)
	defer timer.Stop()
	ws := &watchStream{s: s, w: w, r: r, rc: rc, e: e, o: o, ct: ct, user: watcherName(r), timer: timer, first: true}
	if es, ok := wi.(storage.EventSource); ok {
		ws.writeEvents(ctx, es.Events())
	} else {
		ws.writeResults(ctx, wi.ResultChan())
	}
	ws.traceStreamed()
	return nil
}

// writeEvents writes a storage watcher's events until it closes them,
// which it does once ctx is done (its context is ctx's child): one
// channel to wait on for each event a thousand watchers of a resource
// each wait for, where kube-apiserver's watch server selects over four
// (its events, the request's end, the timeout, the server's shutdown).
// Events already made when ctx ends are not written.
func (ws *watchStream) writeEvents(ctx context.Context, events <-chan storage.Event) {
	for ev := range events {
		// As kube-apiserver's watch server: flush when no other event
		// waits, so that a burst goes out in fewer writes to the network.
		if ctx.Err() != nil || !ws.write(ev, len(events) == 0) {
			return
		}
	}
}

// writeResults writes the events of any other watch.Interface until it
// ends or ctx is done.
func (ws *watchStream) writeResults(ctx context.Context, results <-chan watch.Event) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-results:
			if !ok || !ws.write(storage.Event{Event: ev}, len(results) == 0) {
				return
			}
		}
	}
}

// watchStream is one watch's response as serveWatch writes it.
type watchStream struct {
	s     *Server
	w     http.ResponseWriter
	r     *http.Request
	rc    *http.ResponseController
	e     *Endpoint
	o     output
	ct    string // the Content-Type
	user  string
	timer *request.PausableTimer
	first bool
	// unflushed: a frame was written and not flushed (another event
	// was waiting).
	unflushed bool
	// events and flushes count the frames written and the flushes
	// that sent them, for the trace (traceStreamed).
	events, flushes int
}

// flush sends what was written to the client.
func (ws *watchStream) flush() error {
	ws.flushes++
	return ws.rc.Flush()
}

// write writes one event's frame, and flushes if flush is set, after the
// endpoint's stageFrame hook, and records it if it is a stage; false ends
// the watch.
func (ws *watchStream) write(ev storage.Event, flush bool) bool {
	var staged *stagedFrame
	if ws.e.stageFrame != nil {
		var err error
		if staged, err = ws.e.stageFrame(ws.s, ws.r.Context(), ws.user, ev.Event, ws.timer); err != nil {
			return false
		}
	}
	frame, err := watchFrameOf(ws.r, ev, ws.o, !ws.first)
	if err != nil {
		st := statusOf(err)
		frame, _ = watchFrame(ws.r, watch.Event{Type: watch.Error, Object: st}, ws.o, true)
		staged = nil
	}
	ws.first = false
	if staged != nil && ws.unflushed && ws.flush() != nil {
		return false
	}
	// The evidence is the bytes written, shared or not, and they go out
	// on their own (one chunk with HTTP/1.1), as the evidence shows them.
	staged.record(ws.s, ws.r, ws.user, ws.ct, frame)
	if _, err := ws.w.Write(frame); err != nil {
		return false
	}
	ws.events++
	ws.unflushed = !flush && staged == nil
	if ws.unflushed {
		return true
	}
	return ws.flush() == nil
}

// maxWatchTimeout caps a watch's timeoutSeconds: the largest whole number
// of seconds a time.Duration holds (about 292 years). kube-apiserver
// multiplies timeoutSeconds by a second unchecked, so that a larger value
// overflows (999999999999999999 becomes about -219 years) and the watch
// ends at once, which a client's reflector meets with a new watch, again
// and again. kubesim saturates instead; below the cap nothing changes.
const maxWatchTimeout = math.MaxInt64 / time.Second * time.Second

// watchTimeout returns how long a watch lasts. A positive timeoutSeconds
// is taken as it is, up to maxWatchTimeout; without one (or with 0, as in
// kube-apiserver) the watch lasts minRequestTimeout*(1+jitter), so that
// with jitter drawn from [0, 1) the watches of many clients, started
// together, end at different times between minRequestTimeout and twice
// it. A negative timeoutSeconds is a 400 BadRequest with apimachinery's
// message for a negative field (kube-apiserver would end such a watch at
// once).
func watchTimeout(timeoutSeconds *int64, minRequestTimeout time.Duration, jitter float64) (time.Duration, error) {
	if timeoutSeconds == nil || *timeoutSeconds == 0 {
		return time.Duration(float64(minRequestTimeout) * (1 + jitter)), nil
	}
	if errs := apivalidation.ValidateNonnegativeField(*timeoutSeconds, field.NewPath("timeoutSeconds")); len(errs) > 0 {
		return 0, apierrors.NewBadRequest(errs.ToAggregate().Error())
	}
	if *timeoutSeconds > int64(maxWatchTimeout/time.Second) {
		return maxWatchTimeout, nil
	}
	return time.Duration(*timeoutSeconds) * time.Second, nil
}

// watcherName is the user a watch is served to.
func watcherName(r *http.Request) string {
	if a, _ := request.AttributesFrom(r.Context()); a.User != nil {
		return a.User.Name
	}
	return ""
}

// watchFrameOf is the frame of ev for a watcher that asked for form o:
// the one in the event's shared encodings, made by the first watcher
// that wrote the event in that form, when the form needs nothing of the
// request (no Table or partial metadata: those depend on the request and
// the time, and each watcher makes its own, as kube-apiserver's cacher
// leaves transformed objects uncached too). The frame is shared: it must
// not be modified.
func watchFrameOf(r *http.Request, ev storage.Event, o output, noHeaders bool) ([]byte, error) {
	if ev.Encodings == nil || o.as != asNone {
		return watchFrame(r, ev.Event, o, noHeaders)
	}
	return ev.Encodings.Get(frameForm(o), func() ([]byte, error) {
		return watchFrame(r, ev.Event, o, noHeaders)
	})
}

// frameForm names the form of a watch frame in an event's Encodings.
func frameForm(o output) string {
	if o.pretty && o.mediaType == mediaJSON {
		return o.mediaType + ";pretty"
	}
	return o.mediaType
}

// watchFrame is the bytes one event is sent as: for JSON, the event's JSON
// and a newline; for protobuf, a 4-byte big-endian length and a
// metav1.WatchEvent whose object is itself protobuf-encoded.
func watchFrame(r *http.Request, ev watch.Event, o output, noHeaders bool) ([]byte, error) {
	obj, err := transform(r, ev.Object, o, noHeaders, time.Now())
	if err != nil {
		return nil, err
	}
	if o.mediaType == mediaProtobuf {
		return protobufWatchFrame(ev.Type, obj)
	}
	data, err := encode(obj, output{mediaType: mediaJSON})
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.Grow(len(data) + 32)
	b.WriteString(`{"type":"`)
	b.WriteString(string(ev.Type))
	b.WriteString(`","object":`)
	b.Write(bytes.TrimRight(data, "\n"))
	b.WriteString("}\n")
	return b.Bytes(), nil
}

func protobufWatchFrame(typ watch.EventType, obj runtime.Object) ([]byte, error) {
	inner, err := encode(obj, output{mediaType: mediaProtobuf})
	if err != nil {
		return nil, err
	}
	var payload bytes.Buffer
	ev := &metav1.WatchEvent{Type: string(typ), Object: runtime.RawExtension{Raw: inner}}
	if err := registry.ProtobufRaw.Encode(ev, &payload); err != nil {
		return nil, err
	}
	frame := make([]byte, 4, 4+payload.Len())
	binary.BigEndian.PutUint32(frame, uint32(payload.Len()))
	return append(frame, payload.Bytes()...), nil
}
