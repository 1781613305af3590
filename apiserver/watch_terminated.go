package apiserver

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/flow"
)

// watchContext is the context serveWatch watches with: if the watch
// cache gives up on this watcher (its buffer stayed full: the client did
// not read), the API server records a flow event with the cache's
// figures, naming the request. The storage layer logs it too, to the API
// server's log.
func (s *Server) watchContext(r *http.Request, w http.ResponseWriter) context.Context {
	if s.cfg.Recorder == nil {
		return r.Context()
	}
	user, uri, proto, auditID := watcherName(r), r.URL.RequestURI(), r.Proto, w.Header().Get("Audit-Id")
	return storage.WithWatcherTerminated(r.Context(), func(t storage.WatcherTerminated) {
		s.cfg.Recorder.Record(flow.Event{
			Component: component,
			Time:      t.Time,
			Summary:   fmt.Sprintf("watch cache dropped the watcher of %s: GET %s", user, uri),
			Terminated: &flow.WatchTermination{
				User: user, URI: uri, Proto: proto, AuditID: auditID,
				BufferSize: t.BufferSize, Queued: t.Queued, ResultSize: t.ResultSize, ResultQueued: t.ResultQueued,
				LastQueued: t.LastQueued, GaveUpAt: t.GaveUpAt, Waited: t.Waited,
			},
		})
	})
}
