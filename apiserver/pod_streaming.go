package apiserver

import (
	"net/http"
	"sort"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"
)

// podStreaming are the pod subresources that stream: pods/log (GET) and
// upstream's connecters exec, attach and portforward (GET for a
// WebSocket upgrade, POST for SPDY), with the operation ids of
// kube-apiserver's OpenAPI.
var podStreaming = []struct {
	name, kind string
	serve      func(h *handlers, w http.ResponseWriter, r *http.Request, p Params) error
	connect    bool
}{
	{subAttach, "PodAttachOptions", (*handlers).podConnect, true},
	{subExec, "PodExecOptions", (*handlers).podConnect, true},
	{subLog, "Pod", (*handlers).podLog, false},
	{subPortForward, "PodPortForwardOptions", (*handlers).podConnect, true},
}

// installPodStreaming adds pods/attach, exec, log and portforward: their
// routes in the core WebService, and their entries in discovery (log:
// get; the others: create, get, as upstream lists them), in discovery's
// alphabetical order. It runs once the routes of the other resources are
// built; the OpenAPI document, built before, does not describe them.
func (s *Server) installPodStreaming() {
	var ws *restful.WebService
	for _, w := range s.container.RegisteredWebServices() {
		if w.RootPath() == rootPath(corev1.SchemeGroupVersion) {
			ws = w
		}
	}
	for _, g := range s.groups {
		if g.gv != corev1.SchemeGroupVersion || g.bindings == nil || ws == nil {
			continue
		}
		e := g.bindings // the pods endpoint
		for _, ps := range podStreaming {
			sub := subresource{name: ps.name, kind: corev1.SchemeGroupVersion.WithKind(ps.kind), verbs: []string{verbGet}}
			if ps.connect {
				sub.verbs = []string{verbCreate, verbGet}
			}
			e.subresources = append(e.subresources, sub)
			h := &handlers{s: s, e: e, sub: &sub} // its own copy: the slice is sorted below
			serve := ps.serve
			fn := s.routeFunction(ws, func(w http.ResponseWriter, r *http.Request, p Params) error { return serve(h, w, r, p) })
			path := "/namespaces/{namespace}/pods/{name}/" + ps.name
			if !ps.connect {
				ws.Route(ws.GET(path).To(fn).Operation("readCoreV1NamespacedPodLog").Doc("read log of the specified Pod"))
				continue
			}
			op := "CoreV1NamespacedPod" + exported(ps.name)
			ws.Route(ws.GET(path).To(fn).Operation("connectGet" + op).Doc("connect GET requests to " + ps.name + " of Pod"))
			ws.Route(ws.POST(path).To(fn).Operation("connectPost" + op).Doc("connect POST requests to " + ps.name + " of Pod"))
		}
		sort.SliceStable(e.subresources, func(i, j int) bool { return e.subresources[i].name < e.subresources[j].name })
	}
}
