package restfullab

import (
	"maps"
	"net/http/httptest"
	"strconv"
	"testing"

	restful "github.com/emicklei/go-restful/v3"
)

// chosen is what a route function saw of go-restful's dispatch.
type chosen struct {
	route  string
	params map[string]string
}

// labContainer builds a Container shaped as kube-apiserver's (discovery
// WebServices, the core group with pods and namespaces, apps/v1) plus
// routes that exercise what kube-apiserver's do not (a regular
// expression, a {path:*} wildcard, a custom verb, Consumes and Produces),
// with router; every route function writes into *got what it was given.
func labContainer(router restful.RouteSelector, got *chosen) *restful.Container {
	c := restful.NewContainer()
	c.Router(router)
	to := func(req *restful.Request, _ *restful.Response) {
		*got = chosen{route: req.Request.Method + " " + req.SelectedRoutePath(), params: req.PathParameters()}
	}
	add := func(root string, routes ...*restful.RouteBuilder) {
		ws := new(restful.WebService)
		ws.Path(root).Consumes("*/*").Produces("*/*")
		for _, b := range routes {
			ws.Route(b.To(to))
		}
		c.Add(ws)
	}
	ws := new(restful.WebService) // routes are built on a throwaway WebService of the same root
	route := func(root, method, path string) *restful.RouteBuilder {
		ws.Path(root)
		return ws.Method(method).Path(path).Operation(method + path)
	}
	add("/api", route("/api", "GET", "/"))
	core := []*restful.RouteBuilder{route("/api/v1", "GET", "/")}
	for _, p := range []string{"/namespaces/{namespace}/pods", "/pods", "/namespaces/{namespace}/pods/{name}",
		"/namespaces/{namespace}/pods/{name}/status", "/watch/namespaces/{namespace}/pods", "/watch/namespaces/{namespace}/pods/{name}",
		"/watch/pods", "/namespaces", "/namespaces/{name}", "/nodes/{name:[a-z0-9-]+}", "/proxy/{kind}/{name}/{path:*}"} {
		core = append(core, route("/api/v1", "GET", p))
	}
	core = append(core, route("/api/v1", "POST", "/namespaces/{namespace}/pods"),
		route("/api/v1", "PUT", "/namespaces/{namespace}/pods/{name}"), route("/api/v1", "DELETE", "/namespaces/{namespace}/pods/{name}"),
		route("/api/v1", "PATCH", "/namespaces/{namespace}/pods/{name}").Consumes("application/merge-patch+json"),
		route("/api/v1", "GET", "/namespaces/{namespace}/pods/{name}/log").Produces("text/plain"),
		route("/api/v1", "POST", "/namespaces/{namespace}/pods/{name}:evict"))
	add("/api/v1", core...)
	add("/apis", route("/apis", "GET", "/"))
	add("/apis/apps", route("/apis/apps", "GET", "/"))
	add("/apis/apps/v1", route("/apis/apps/v1", "GET", "/"), route("/apis/apps/v1", "GET", "/namespaces/{namespace}/deployments/{name}"))
	add("/version", route("/version", "GET", "/"))
	return c
}

// labRequests are the requests of the dispatch tests: kube-apiserver's
// usual paths, the legacy watch paths, a 404 (no route, and no
// WebService), a 405, a 415, a 406, and paths where the routers differ.
var labRequests = []Request{
	{Method: "GET", Path: "/api/v1/namespaces/default/pods/x"},
	{Method: "GET", Path: "/api/v1/namespaces/default/pods"},
	{Method: "GET", Path: "/api/v1/pods"},
	{Path: "/api/v1/pods"}, // no method: GET
	{Method: "POST", Path: "/api/v1/namespaces/default/pods", ContentType: "application/json"},
	{Method: "GET", Path: "/api/v1/watch/namespaces/default/pods/x"},
	{Method: "GET", Path: "/api/v1/watch/pods"},
	{Method: "GET", Path: "/api/v1/namespaces/default/pods/x/status"},
	{Method: "GET", Path: "/api/v1/namespaces/kube-system"},
	{Method: "GET", Path: "/api/v1/no-such-resource"},
	{Method: "GET", Path: "/nothing/here"},
	{Method: "PUT", Path: "/api/v1/namespaces/default/pods", ContentType: "application/json"},
	{Method: "PATCH", Path: "/api/v1/namespaces/default/pods/x", ContentType: "application/json-patch+json"},
	{Method: "PATCH", Path: "/api/v1/namespaces/default/pods/x", ContentType: "application/merge-patch+json"},
	{Method: "GET", Path: "/api/v1/namespaces/default/pods/x/log", Accept: "application/json"},
	{Method: "GET", Path: "/api/v1/namespaces/default/pods/x/log", Accept: "text/plain"},
	{Method: "POST", Path: "/api/v1/namespaces/default/pods/x:evict", ContentType: "application/json"},
	{Method: "GET", Path: "/api/v1/nodes/node-1"},
	{Method: "GET", Path: "/api/v1/nodes/NODE"},
	{Method: "GET", Path: "/api/v1/proxy/pods/x/a/b/c"},
	{Method: "GET", Path: "/api/v1/namespaces//pods"},
	{Method: "GET", Path: "/api/v1/namespaces/default/pods/"},
	{Method: "GET", Path: "/api/"},
	{Method: "GET", Path: "/api"},
	{Method: "GET", Path: "/apis/apps/v1/namespaces/default/deployments/web"},
	{Method: "GET", Path: "/apis/apps"},
	{Method: "GET", Path: "/apis/example.com/v1/widgets"},
	{Method: "GET", Path: "/version"},
}

// TestDispatchIsGoRestfuls checks, for both routers and every request,
// that the route a Dispatch names is the one go-restful's Container
// really dispatched to, with the same path parameters (or the same error
// status), and that the recomputation reached it too.
func TestDispatchIsGoRestfuls(t *testing.T) {
	routers := []struct {
		name     string
		selector restful.RouteSelector
		run      func([]*restful.WebService, Request) *Dispatch
	}{
		{CurlyRouter, restful.CurlyRouter{}, Curly},
		{RouterJSR311, restful.RouterJSR311{}, JSR311},
	}
	for _, r := range routers {
		for _, req := range labRequests {
			t.Run(r.name+" "+req.Method+" "+req.Path+" "+req.ContentType+req.Accept, func(t *testing.T) {
				var got chosen
				c := labContainer(r.selector, &got)
				d := r.run(c.RegisteredWebServices(), req)
				rec := httptest.NewRecorder()
				c.Dispatch(rec, req.httpRequest())
				if !d.Agrees {
					t.Errorf("Agrees = false: recomputed %v (code %d), go-restful chose %v in %q (error %+v)", d.Recomputed, d.RecomputedCode, d.Route, d.WebService, d.Err)
				}
				switch {
				case d.Route == nil:
					if d.Err == nil || rec.Code != d.Err.Code {
						t.Errorf("Dispatch: no route, error %+v; the Container answered %d", d.Err, rec.Code)
					}
					if got.route != "" {
						t.Errorf("the Container called %s, the Dispatch names no route", got.route)
					}
				case got.route != d.Route.String():
					t.Errorf("Dispatch chose %s; the Container called %q", d.Route, got.route)
				case !maps.Equal(got.params, d.Params):
					t.Errorf("Dispatch params %v; the route function got %v", d.Params, got.params)
				}
			})
		}
	}
}

// TestCurlyScores checks the scores of CurlyRouter's recomputation.
func TestCurlyScores(t *testing.T) {
	tests := []struct {
		req     Request
		wsScore map[string]int // root path → score, of those that match
		first   RouteScore     // the first candidate
		code    int
	}{
		{Request{Method: "GET", Path: "/api/v1/namespaces/default/pods/x"}, map[string]int{"/api": 10, "/api/v1": 30},
			RouteScore{RouteRef: RouteRef{Method: "GET", Path: "/api/v1/namespaces/{namespace}/pods/{name}"}, Static: 4, Params: 2, Outcome: OutcomeChosen}, 0},
		{Request{Method: "GET", Path: "/apis/apps/v1/namespaces/default/deployments/web"}, map[string]int{"/apis": 10, "/apis/apps": 30, "/apis/apps/v1": 60},
			RouteScore{RouteRef: RouteRef{Method: "GET", Path: "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"}, Static: 5, Params: 2, Outcome: OutcomeChosen}, 0},
		{Request{Method: "PUT", Path: "/api/v1/namespaces/default/pods"}, map[string]int{"/api": 10, "/api/v1": 30},
			RouteScore{RouteRef: RouteRef{Method: "GET", Path: "/api/v1/namespaces/{namespace}/pods"}, Static: 4, Params: 1, Outcome: OutcomeMethod}, 405},
	}
	for _, tt := range tests {
		t.Run(tt.req.Path, func(t *testing.T) {
			c := labContainer(restful.CurlyRouter{}, new(chosen))
			d := Curly(c.RegisteredWebServices(), tt.req)
			for _, ws := range d.WebServices {
				want, ok := tt.wsScore[ws.RootPath]
				if ws.Matches != ok || (ok && ws.Score != want) {
					t.Errorf("WebService %s: matches %v, score %d; want matches %v, score %d", ws.RootPath, ws.Matches, ws.Score, ok, want)
				}
			}
			if len(d.Candidates) == 0 {
				t.Fatalf("no candidates")
			}
			got := d.Candidates[0]
			got.Operation = ""
			if got != tt.first {
				t.Errorf("first candidate %s %+v, want %s %+v", got.RouteRef, got, tt.first.RouteRef, tt.first)
			}
			if tt.code != 0 && (d.Err == nil || d.Err.Code != tt.code) {
				t.Errorf("error %+v, want code %d", d.Err, tt.code)
			}
		})
	}
}

// TestRoutersDiffer pins the requests on which the two routers choose
// differently on the same WebServices, so that the lesson that shows one
// stays true.
func TestRoutersDiffer(t *testing.T) {
	tests := []struct {
		req        Request
		curly, jsr string // the route chosen, or the error code
	}{
		{Request{Method: "GET", Path: "/api/v1/namespaces//pods"}, "GET /api/v1/namespaces/{namespace}/pods", "404"},
	}
	for _, tt := range tests {
		t.Run(tt.req.Path, func(t *testing.T) {
			c := labContainer(restful.CurlyRouter{}, new(chosen))
			ws := c.RegisteredWebServices()
			if got := outcome(Curly(ws, tt.req)); got != tt.curly {
				t.Errorf("CurlyRouter: %s, want %s", got, tt.curly)
			}
			if got := outcome(JSR311(ws, tt.req)); got != tt.jsr {
				t.Errorf("RouterJSR311: %s, want %s", got, tt.jsr)
			}
		})
	}
}

// outcome is the route d chose, or its error code.
func outcome(d *Dispatch) string {
	if d.Route != nil {
		return d.Route.String()
	}
	if d.Err != nil {
		return strconv.Itoa(d.Err.Code)
	}
	return "nothing"
}

// TestClaim checks the director's rule on the lab's Container.
func TestClaim(t *testing.T) {
	ws := labContainer(restful.CurlyRouter{}, new(chosen)).RegisteredWebServices()
	tests := []struct {
		path, root string
		ok         bool
	}{
		{"/api/v1/namespaces/default/pods", "/api", true}, // /api comes first in the lab's Container
		{"/apis", "/apis", true},
		{"/apis/apps/v1/deployments", "/apis/apps", true},
		{"/apis/example.com/v1/widgets", "", false},
		{"/versionx", "", false},
		{"/version", "/version", true},
	}
	for _, tt := range tests {
		root, ok := Claim(ws, tt.path)
		if root != tt.root || ok != tt.ok {
			t.Errorf("Claim(%q) = %q, %v; want %q, %v", tt.path, root, ok, tt.root, tt.ok)
		}
	}
}
