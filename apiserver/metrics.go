package apiserver

import (
	"context"
	"net/http"
	"sync"
	"time"

	endpointsmetrics "k8s.io/apiserver/pkg/endpoints/metrics"
	k8srequest "k8s.io/apiserver/pkg/endpoints/request"
	apistorage "k8s.io/apiserver/pkg/storage"
	etcd3metrics "k8s.io/apiserver/pkg/storage/etcd3/metrics"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
	"github.com/kubesim/kubesim/internal/componentmetrics"
)

// metricsComponent is the component label of kube-apiserver's request
// metrics (k8s.io/apiserver's APIServerComponent).
const metricsComponent = endpointsmetrics.APIServerComponent

var registerMetrics sync.Once

// registerAPIServerMetrics registers k8s.io/apiserver's request and etcd
// metrics with legacyregistry, as kube-apiserver does when it installs
// /metrics. Safe to call again.
func registerAPIServerMetrics() {
	registerMetrics.Do(func() {
		endpointsmetrics.Register()
		etcd3metrics.Register()
	})
}

// MetricsHandler serves /metrics as kube-apiserver does (package
// componentmetrics: the API server's series of the process's registry);
// the aggregator, the first server of the chain, installs it.
func (s *Server) MetricsHandler() http.Handler {
	return componentmetrics.Handler(componentmetrics.APIServer, s.refreshMetrics)
}

// refreshMetrics sets, just before a scrape, the gauges kube-apiserver
// keeps up to date by itself: the objects stored per resource, the
// requests in flight.
func (s *Server) refreshMetrics() {
	s.updateStoreStats()
	s.inflight.Publish()
}

// Monitor serves a request a route of the API matched through serve and
// records it in kube-apiserver's request metrics, as upstream's
// InstrumentRouteFunc does around every route of its installer:
// apiserver_request_total, apiserver_request_duration_seconds (from the
// moment the server received the request), apiserver_response_sizes of
// reads and, while a watch or a connect (exec, attach, portforward,
// proxy) lasts, apiserver_longrunning_requests. Requests that reach no
// route (401, 403, 404 of an unknown path, 429) are not recorded, as
// upstream's are not; nor are non-resource requests.
func (s *Server) Monitor(w http.ResponseWriter, r *http.Request, serve func(http.ResponseWriter, *http.Request)) {
	a, _ := request.AttributesFrom(r.Context())
	if !a.ResourceRequest {
		serve(w, r)
		return
	}
	start := time.Now()
	if t := request.TraceFrom(r.Context()); t != nil {
		start = t.Start()
	}
	scope, verb := metricScope(a), metricVerb(a)
	rec := &statusRecorder{ResponseWriter: w}
	if verb == endpointsmetrics.MethodWatch || verb == endpointsmetrics.MethodConnect {
		info := requestInfo(a)
		r = r.WithContext(k8srequest.WithRequestInfo(r.Context(), info))
		endpointsmetrics.RecordLongRunning(r, info, metricsComponent, func() { serve(rec, r) })
	} else {
		serve(rec, r)
	}
	endpointsmetrics.MonitorRequest(r, verb, a.APIGroup, a.APIVersion, a.Resource, a.Subresource, scope, metricsComponent,
		false, "", rec.status(), int(rec.written), time.Since(start))
}

// metricScope is the scope label of a request, as upstream's CleanScope
// gives it: "resource" for one object (or a create), "namespace" for a
// namespace's collection, "cluster" for the whole collection.
func metricScope(a auth.Attributes) string {
	switch {
	case a.Name != "" || a.Verb == auth.VerbCreate:
		return "resource"
	case a.Namespace != "":
		return "namespace"
	}
	return "cluster"
}

// connectSubresources are upstream's connect subresources, whose
// requests its metrics count as CONNECT.
var connectSubresources = map[string]bool{"exec": true, "attach": true, "portforward": true, "proxy": true}

// metricVerb is the verb upstream's installer gives the route of a
// request: LIST, GET, WATCH, POST, PUT, PATCH, DELETE, DELETECOLLECTION,
// CONNECT. (MonitorRequest tells APPLY from PATCH by the content type.)
func metricVerb(a auth.Attributes) string {
	if connectSubresources[a.Subresource] || a.Verb == auth.VerbProxy {
		return endpointsmetrics.MethodConnect
	}
	switch a.Verb {
	case auth.VerbList:
		return endpointsmetrics.MethodList
	case auth.VerbWatch:
		return endpointsmetrics.MethodWatch
	case auth.VerbCreate:
		return endpointsmetrics.MethodPost
	case auth.VerbUpdate:
		return endpointsmetrics.MethodPut
	case auth.VerbPatch:
		return endpointsmetrics.MethodPatch
	case auth.VerbDelete:
		return endpointsmetrics.MethodDelete
	case auth.VerbDeleteCollection:
		return endpointsmetrics.MethodDeleteCollection
	}
	return endpointsmetrics.MethodGet
}

// requestInfo is upstream's RequestInfo of a resource request, which its
// long-running gauge and its CONNECT check read.
func requestInfo(a auth.Attributes) *k8srequest.RequestInfo {
	return &k8srequest.RequestInfo{IsResourceRequest: true, Path: a.Path, Verb: a.Verb, APIGroup: a.APIGroup,
		APIVersion: a.APIVersion, Namespace: a.Namespace, Resource: a.Resource, Subresource: a.Subresource, Name: a.Name}
}

// statusRecorder notes the status and the bytes of a response. It
// flushes through, and Unwrap gives http.ResponseController the writer
// below (to hijack a connection, to set deadlines).
type statusRecorder struct {
	http.ResponseWriter
	code    int
	written int64
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.written += int64(n)
	return n, err
}

func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// status is the response's status code (200 if nothing was written).
func (w *statusRecorder) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

// storeStatsTimeout bounds the counts of one scrape.
const storeStatsTimeout = 10 * time.Second

// updateStoreStats sets apiserver_resource_objects (and, hidden in
// v1.37, apiserver_storage_objects) to the objects etcd holds per
// built-in resource, as kube-apiserver's storage does from its periodic
// count; kubesim counts when /metrics is read. Custom resources are not
// counted.
func (s *Server) updateStoreStats() {
	ctx, cancel := context.WithTimeout(context.Background(), storeStatsTimeout)
	defer cancel()
	for _, c := range s.reg.CountObjects(ctx) {
		etcd3metrics.UpdateStoreStats(c.Resource, apistorage.Stats{ObjectCount: c.Count}, c.Err)
	}
}
