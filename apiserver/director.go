package apiserver

import (
	"net/http"
	"strings"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/kubesim/kubesim/apiserver/request"
)

// The names of the servers of the delegation chain, as the trace shows
// them. As kube-apiserver's CreateServerChain builds the chain (package
// serverchain), a request enters the aggregator; what it does not serve
// goes to kube-apiserver, then to the apiextensions server, then to the
// not-found handler. The filters of filters.BuildHandlerChain (authn,
// audit, authz, ...) run once, around the aggregator, as upstream's run in
// the aggregator's handler chain only.
const (
	ServerAggregator    = "aggregator"
	ServerKubeAPIServer = "kube-apiserver"
	ServerAPIExtensions = "apiextensions"
	ServerNotFound      = "not-found"
)

// TraceHop records in the request's trace what one server of the chain
// did with the request: "served", "delegated", "proxied" or "not found".
func TraceHop(r *http.Request, server, outcome, text string) {
	if t := request.TraceFrom(r.Context()); t.Recording() {
		t.Step(server, outcome, server+": "+text, "server", server, "hop", outcome)
	}
}

// director sends a request to the go-restful Container of one server of
// the chain when one of the Container's WebServices claims its path, and
// to nonGoRestful otherwise, as genericapiserver's director does: a
// WebService claims a path equal to its root path or below it, except the
// root /apis, which claims only /apis itself (it would otherwise claim
// every group).
type director struct {
	name         string
	container    *restful.Container
	nonGoRestful http.Handler
}

// NewDirector returns the director of the server name: container's paths
// to container, the rest to nonGoRestful.
func NewDirector(name string, container *restful.Container, nonGoRestful http.Handler) http.Handler {
	return &director{name: name, container: container, nonGoRestful: nonGoRestful}
}

// ServeHTTP implements http.Handler.
func (d *director) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if ws := d.claimedBy(r.URL.Path); ws != nil {
		TraceHop(r, d.name, "served", "WebService "+ws.RootPath()+" claims "+r.URL.Path)
		d.container.Dispatch(w, r)
		return
	}
	d.nonGoRestful.ServeHTTP(w, r)
}

// claimedBy returns the WebService whose root path claims path, or nil.
func (d *director) claimedBy(path string) *restful.WebService {
	for _, ws := range d.container.RegisteredWebServices() {
		root := ws.RootPath()
		if root == "/apis" {
			if path == "/apis" || path == "/apis/" {
				return ws
			}
			continue
		}
		if strings.HasPrefix(path, root) && (len(path) == len(root) || path[len(root)] == '/') {
			return ws
		}
	}
	return nil
}

// ServedByMux returns h, recording first that server served the request
// from its non-go-restful mux (health, OpenAPI).
func ServedByMux(server string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		TraceHop(r, server, "served", "its non-go-restful mux serves "+r.URL.Path)
		h.ServeHTTP(w, r)
	})
}

// DelegateTo returns a handler that records that server delegated the
// request and passes it to delegate.
func DelegateTo(server string, delegate http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		TraceHop(r, server, "delegated", "no route for "+r.URL.Path+", delegated")
		delegate.ServeHTTP(w, r)
	})
}

// NotFoundHandler ends the chain: nothing served the path. As upstream's
// notfoundhandler, it answers with net/http's plain "404 page not found",
// not a Status (a path under a served group-version, /api/v1/nosuch, gets
// go-restful's 404 Status from that group's server instead).
func NotFoundHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		TraceHop(r, ServerNotFound, "not found", "no server of the chain serves "+r.URL.Path)
		http.NotFound(w, r)
	})
}

// NewContainer returns an empty go-restful Container configured as
// every server of the chain has it: CurlyRouter, panics left to the
// handler chain's recovery, and errors of go-restful's own dispatch (no
// route inside a WebService: 404; wrong method: 405) answered as a
// metav1.Status.
func (s *Server) NewContainer() *restful.Container {
	c := restful.NewContainer()
	c.ServeMux = http.NewServeMux()
	c.Router(restful.CurlyRouter{})
	c.DoNotRecover(true)
	c.ServiceErrorHandler(s.serviceError)
	return c
}
