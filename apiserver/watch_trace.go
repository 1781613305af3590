package apiserver

import (
	"fmt"
	"net/http"

	"github.com/kubesim/kubesim/apiserver/request"
)

// traceWatchChoice adds to r's trace the step where listOrWatch, as
// kube-apiserver's ListResource does (opts.Watch || forceWatch), chose to
// serve a collection's GET as a watch rather than a list, and why: the
// query's watch=true, or the legacy /watch/ path (forceWatch); with the
// resourceVersion the watch starts from.
func traceWatchChoice(r *http.Request, forceWatch bool, resourceVersion string) {
	t := request.TraceFrom(r.Context())
	if !t.Recording() {
		return
	}
	why := "the query has watch=true (opts.Watch)"
	if forceWatch {
		why = "the path is the legacy /watch/ one (forceWatch)"
	}
	from := "no resourceVersion: the current state first, as ADDED events, then the changes"
	if resourceVersion != "" {
		from = "from resourceVersion " + resourceVersion + ": the changes after it"
	}
	t.Step("watch", "ok", fmt.Sprintf("a watch, not a list: %s; %s", why, from), "forceWatch", fmt.Sprint(forceWatch), "resourceVersion", resourceVersion)
}

// traceStreamed adds to the request's trace, once its watch ended, what
// serveWatch wrote: how many events, each one JSON (or protobuf) WatchEvent
// {type, object}, in how many flushes. Over HTTP/1.1 a flush sends what
// was written as one chunk of the chunked body; over HTTP/2, as DATA
// frames on the request's stream.
func (ws *watchStream) traceStreamed() {
	t := request.TraceFrom(ws.r.Context())
	if !t.Recording() {
		return
	}
	as := "the objects as they are"
	if ws.o.as == asTable {
		as = "each object as a meta.k8s.io/v1 Table of its row (Accept as=Table)"
	}
	carrier := "chunks of the chunked body (HTTP/1.1)"
	if ws.r.ProtoMajor == 2 {
		carrier = "DATA frames on the request's stream (HTTP/2)"
	}
	t.Step("streamed", "ok", fmt.Sprintf("Content-Type %s: %d watch events written, one WatchEvent {type, object} each, %s, in %d flushes as %s",
		ws.ct, ws.events, as, ws.flushes, carrier), "events", fmt.Sprint(ws.events), "flushes", fmt.Sprint(ws.flushes))
}
