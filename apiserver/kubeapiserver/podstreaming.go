package kubeapiserver

import (
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// podStreams serves the pod subresources that stream (pods/log and
// exec, attach, portforward), as kube-apiserver's pod storage does with
// its LogREST and connecters: through the kubelet of the pod's node.
type podStreams struct {
	reg        *registry.Registry
	cfg        *apiserver.KubeletClientConfig
	authorizer auth.Authorizer
	// kubelets is the transport to the kubelets, made on first use.
	kubelets kubeletClient
}

// podStreaming are the pod subresources that stream: pods/log (GET) and
// upstream's connecters exec, attach and portforward (GET for a
// WebSocket upgrade, POST for SPDY), with the operation ids of
// kube-apiserver's OpenAPI.
var podStreaming = []struct {
	name, kind string
	connect    bool
}{
	{subAttach, "PodAttachOptions", true},
	{subExec, "PodExecOptions", true},
	{subLog, "Pod", false},
	{subPortForward, "PodPortForwardOptions", true},
}

// logMediaTypes are what upstream's route of pods/log produces (a 406
// lists them): the log's text/plain, then the object types. Its connect
// routes (attach, exec, portforward) produce anything.
var logMediaTypes = []string{"text/plain", "application/json", "application/yaml", "application/vnd.kubernetes.protobuf"}

// installPodStreaming adds pods/attach, exec, log and portforward to the
// pods of g, served by ps: their routes in ws, the core WebService, and
// their entries in discovery (log: get; the others: create, get, as
// upstream lists them), in discovery's alphabetical order. It runs once
// the routes of the other resources are built; the OpenAPI document,
// built before, does not describe them.
func installPodStreaming(g *apiserver.Server, ws *restful.WebService, ps *podStreams) {
	pods := g.BuiltinEndpoint(registry.Pods)
	for _, sub := range podStreaming {
		verbs := []string{"get"}
		if sub.connect {
			verbs = []string{"create", "get"}
		}
		pods.AddListedSubresource(sub.name, corev1.SchemeGroupVersion.WithKind(sub.kind), verbs)
		path := "/namespaces/{namespace}/pods/{name}/" + sub.name
		if !sub.connect {
			ws.Route(ws.GET(path).Produces(logMediaTypes...).To(g.RouteFunction(ws, ps.podLog)).Operation("readCoreV1NamespacedPodLog").Doc("read log of the specified Pod"))
			continue
		}
		name := sub.name
		fn := g.RouteFunction(ws, func(w http.ResponseWriter, r *http.Request, p apiserver.Params) error {
			return ps.podConnect(name, w, r, p)
		})
		op := "CoreV1NamespacedPod" + strings.ToUpper(name[:1]) + name[1:]
		ws.Route(ws.GET(path).Produces("*/*").To(fn).Operation("connectGet" + op).Doc("connect GET requests to " + name + " of Pod"))
		ws.Route(ws.POST(path).Produces("*/*").To(fn).Operation("connectPost" + op).Doc("connect POST requests to " + name + " of Pod"))
	}
}

// coreWebService is the WebService of /api/v1 in c.
func coreWebService(c *restful.Container) *restful.WebService {
	for _, ws := range c.RegisteredWebServices() {
		if ws.RootPath() == "/api/v1" {
			return ws
		}
	}
	return nil
}
