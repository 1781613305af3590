package metricsserver

import (
	"encoding/json"
	"io"
	"log"
	"net/http"

	restful "github.com/emicklei/go-restful/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var discardLog = log.New(io.Discard, "", 0)

const mediaJSON = "application/json"

// buildHandler is the server's handler: health endpoints open to anyone,
// everything else behind requestheader authentication, dispatched by the
// server's own go-restful Container.
func (s *Server) buildHandler() http.Handler {
	c := restful.NewContainer()
	c.ServeMux = http.NewServeMux()
	c.Router(restful.CurlyRouter{})
	c.ServiceErrorHandler(func(serr restful.ServiceError, req *restful.Request, resp *restful.Response) {
		writeStatus(resp.ResponseWriter, apierrors.NewGenericServerResponse(serr.Code, "", schema.GroupResource{}, "", serr.Message, 0, false))
	})
	c.Add(s.metricsWebService())
	c.Add(discoveryWebService("/apis", func() any { return groupList() }))
	c.Add(discoveryWebService("/apis/"+groupVersion.Group, func() any { g := apiGroup(); return &g }))
	c.ServeMux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeStatus(w, apierrors.NewGenericServerResponse(http.StatusNotFound, "", schema.GroupResource{}, "", "", 0, false))
	})
	authed := withRequestHeaderAuthentication(c, s.cfg.AllowedNames)
	mux := http.NewServeMux()
	for _, p := range []string{"/healthz", "/livez", "/readyz"} {
		mux.HandleFunc(p, s.health)
	}
	mux.Handle("/", authed)
	return mux
}

// metricsWebService is metrics.k8s.io/v1beta1: its resource list, nodes
// and pods.
func (s *Server) metricsWebService() *restful.WebService {
	ws := new(restful.WebService)
	ws.Path("/apis/" + groupVersion.String()).Consumes("*/*").Produces(mediaJSON)
	ws.Route(ws.GET("/").To(func(_ *restful.Request, resp *restful.Response) {
		writeJSON(resp.ResponseWriter, http.StatusOK, resourceList())
	}).Operation("getMetricsV1beta1APIResources"))
	ws.Route(ws.GET("/nodes").To(s.list(func(_ *restful.Request, sel selection) any { return s.listNodeMetrics(sel) })).Operation("listMetricsV1beta1NodeMetrics"))
	ws.Route(ws.GET("/pods").To(s.list(func(_ *restful.Request, sel selection) any { return s.listPodMetrics("", sel) })).Operation("listMetricsV1beta1PodMetricsForAllNamespaces"))
	ws.Route(ws.GET("/namespaces/{namespace}/pods").To(s.list(func(req *restful.Request, sel selection) any {
		return s.listPodMetrics(req.PathParameter("namespace"), sel)
	})).Operation("listMetricsV1beta1NamespacedPodMetrics"))
	ws.Route(ws.GET("/nodes/{name}").To(s.get(func(req *restful.Request) (any, error) {
		return s.getNodeMetrics(req.PathParameter("name"))
	})).Operation("readMetricsV1beta1NodeMetrics"))
	ws.Route(ws.GET("/namespaces/{namespace}/pods/{name}").To(s.get(func(req *restful.Request) (any, error) {
		return s.getPodMetrics(req.PathParameter("namespace"), req.PathParameter("name"))
	})).Operation("readMetricsV1beta1NamespacedPodMetrics"))
	return ws
}

// list serves a list with its selectors; a watch is 405, as these
// resources have no watch verb.
func (s *Server) list(fn func(*restful.Request, selection) any) restful.RouteFunction {
	return func(req *restful.Request, resp *restful.Response) {
		q := req.Request.URL.Query()
		if q.Get("watch") == "true" || q.Get("watch") == "1" {
			writeStatus(resp.ResponseWriter, apierrors.NewMethodNotSupported(podMetrics, "watch"))
			return
		}
		sel := selection{labels: labels.Everything(), fields: fields.Everything()}
		var err error
		if v := q.Get("labelSelector"); v != "" {
			if sel.labels, err = labels.Parse(v); err != nil {
				writeStatus(resp.ResponseWriter, apierrors.NewBadRequest(err.Error()))
				return
			}
		}
		if v := q.Get("fieldSelector"); v != "" {
			if sel.fields, err = fields.ParseSelector(v); err != nil {
				writeStatus(resp.ResponseWriter, apierrors.NewBadRequest(err.Error()))
				return
			}
		}
		writeJSON(resp.ResponseWriter, http.StatusOK, fn(req, sel))
	}
}

// get serves one object, or the error as a Status.
func (s *Server) get(fn func(*restful.Request) (any, error)) restful.RouteFunction {
	return func(req *restful.Request, resp *restful.Response) {
		obj, err := fn(req)
		if err != nil {
			writeStatus(resp.ResponseWriter, err)
			return
		}
		writeJSON(resp.ResponseWriter, http.StatusOK, obj)
	}
}

// health answers the health endpoints: ok once the informers have synced.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	select {
	case <-s.ready:
		_, _ = io.WriteString(w, "ok")
	default:
		if r.URL.Path == "/livez" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = io.WriteString(w, "[-]informer-sync failed: not synced\n"+r.URL.Path[1:]+" check failed\n")
	}
}

// discoveryWebService serves doc() at path.
func discoveryWebService(path string, doc func() any) *restful.WebService {
	ws := new(restful.WebService)
	ws.Path(path).Consumes("*/*").Produces(mediaJSON)
	ws.Route(ws.GET("/").To(func(_ *restful.Request, resp *restful.Response) {
		writeJSON(resp.ResponseWriter, http.StatusOK, doc())
	}))
	return ws
}

func apiGroup() metav1.APIGroup {
	v := metav1.GroupVersionForDiscovery{GroupVersion: groupVersion.String(), Version: groupVersion.Version}
	return metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: groupVersion.Group,
		Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}
}

func groupList() *metav1.APIGroupList {
	g := apiGroup()
	g.TypeMeta = metav1.TypeMeta{}
	return &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{g}}
}

// resourceList is the discovery of metrics.k8s.io/v1beta1, as
// metrics-server publishes it.
func resourceList() *metav1.APIResourceList {
	verbs := []string{"get", "list"}
	return &metav1.APIResourceList{
		TypeMeta:     metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"},
		GroupVersion: groupVersion.String(),
		APIResources: []metav1.APIResource{
			{Name: "nodes", SingularName: "node", Namespaced: false, Kind: "NodeMetrics", Verbs: verbs},
			{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "PodMetrics", Verbs: verbs},
		},
	}
}

// writeJSON writes v as JSON with code.
func writeJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeStatus(w, apierrors.NewInternalError(err))
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

// writeStatus writes err as a metav1.Status with its code.
func writeStatus(w http.ResponseWriter, err error) {
	st := apierrors.NewInternalError(err).ErrStatus
	var se apierrors.APIStatus
	if s, ok := err.(apierrors.APIStatus); ok {
		se = s
		st = se.Status()
	}
	st.TypeMeta = metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}
	data, _ := json.Marshal(st)
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(int(st.Code))
	_, _ = w.Write(append(data, '\n'))
}
