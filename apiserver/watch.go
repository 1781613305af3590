package apiserver

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"net/http"
	"time"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// serveWatch streams a watch the way kube-apiserver does over HTTP/1.1 and
// HTTP/2: status 200 and the headers at once, then one JSON object
// {"type":...,"object":...} per event, each flushed as it is written (one
// chunk per event with HTTP/1.1 chunked encoding). The stream ends cleanly
// after timeoutSeconds (or a random 30-60 minutes), when the client goes
// away, or after an ERROR event.
//
// A frame that is a stage of a pod's creation (3 for the scheduler, 6 for
// the pod's kubelet; see stageFrame) may be held at the gate before it is
// written, and is recorded with its exact bytes; the time held does not
// count towards the watch's length.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, e *endpoint, namespace string, opts *metainternalversion.ListOptions) error {
	o, err := negotiate(r, asTable)
	if err == nil && o.mediaType == mediaYAML {
		// YAML has no streaming form.
		err = notAcceptableMsg("only the following media types are accepted: " + mediaJSON + ", " + mediaProtobuf)
	}
	if err != nil {
		return err
	}
	timeout := time.Duration(float64(s.cfg.MinRequestTimeout) * (1 + rand.Float64()))
	if opts.TimeoutSeconds != nil && *opts.TimeoutSeconds > 0 {
		timeout = time.Duration(*opts.TimeoutSeconds) * time.Second
	}
	wi, err := e.store.Watch(r.Context(), namespace, opts)
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
	expired := make(chan struct{})
	timer := newPausableTimer(timeout, func() { close(expired) })
	defer timer.stop()
	user := watcherName(r)
	first := true
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-expired:
			return nil
		case ev, ok := <-wi.ResultChan():
			if !ok {
				return nil
			}
			staged, err := s.stageFrame(r.Context(), user, ev, timer)
			if err != nil {
				return nil
			}
			frame, err := watchFrame(r, ev, o, !first)
			if err != nil {
				st := statusOf(err)
				frame, _ = watchFrame(r, watch.Event{Type: watch.Error, Object: st}, o, true)
				staged = nil
			}
			first = false
			staged.record(s, r, user, ct, frame)
			if _, err := w.Write(frame); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
		}
	}
}

// watcherName is the user a watch is served to.
func watcherName(r *http.Request) string {
	if a, _ := requestAttributes(r.Context()); a.User != nil {
		return a.User.Name
	}
	return ""
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
