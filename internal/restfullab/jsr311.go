package restfullab

import (
	"net/http"

	restful "github.com/emicklei/go-restful/v3"
)

// JSR311 dispatches req on webServices (a Container's, in its order) with
// restful.RouterJSR311, the router a Container uses after
// Router(restful.RouterJSR311{}), and recomputes what it looked at. The
// same concurrency rule as Curly's holds.
func JSR311(webServices []*restful.WebService, req Request) *Dispatch {
	d := &Dispatch{Router: RouterJSR311, Request: req}
	best := jsrWebServices(d, webServices, req.Path)
	hreq := req.httpRequest()
	ws, route, err := restful.RouterJSR311{}.SelectRoute(webServices, hreq)
	d.setResult(ws, route, err)
	if route != nil {
		d.Params = restful.RouterJSR311{}.ExtractParameters(route, ws, req.Path)
	}
	if best < 0 {
		d.RecomputedCode = http.StatusNotFound
		d.agree("")
		return d
	}
	routes := jsrCandidates(d, webServices[best], d.WebServices[best].FinalMatch)
	if len(routes) == 0 {
		d.RecomputedCode = http.StatusNotFound
	} else if i, code := detectRoute(d.Candidates, routes, hreq); i >= 0 {
		d.Recomputed = &RouteRef{Method: routes[i].Method, Path: routes[i].Path, Operation: routes[i].Operation}
	} else {
		d.RecomputedCode = code
	}
	d.agree(webServices[best].RootPath())
	return d
}

// jsrWebServices scores every WebService as detectDispatcher does: its
// root path's expression must match the whole path; of those that match,
// the most submatches win, then the most literal characters, then the
// most variables (the first of equals). It returns the index of the
// winner, or -1.
func jsrWebServices(d *Dispatch, webServices []*restful.WebService, path string) int {
	best := -1
	for i, ws := range webServices {
		sc := WebServiceScore{RootPath: ws.RootPath()}
		t, err := compileTemplate(ws.RootPath())
		if err == nil {
			sc.Regexp, sc.Literals, sc.Vars = t.Regexp, t.Literals, t.Vars
			if m := t.matcher.FindStringSubmatch(path); m != nil {
				sc.Matches, sc.Groups, sc.FinalMatch = true, len(m), m[len(m)-1]
			}
		}
		d.WebServices = append(d.WebServices, sc)
		if sc.Matches && (best < 0 || jsrWebServiceBetter(sc, d.WebServices[best])) {
			best = i
		}
	}
	return best
}

// jsrWebServiceBetter says whether a comes before b in detectDispatcher's
// order.
func jsrWebServiceBetter(a, b WebServiceScore) bool {
	if a.Groups != b.Groups {
		return a.Groups > b.Groups
	}
	if a.Literals != b.Literals {
		return a.Literals > b.Literals
	}
	return a.Vars > b.Vars
}

// jsrCandidates sets d.Candidates to the routes of ws that selectRoutes
// keeps for rest (what the WebService's expression left of the path):
// those whose own expression matches it with nothing or "/" left over, in
// its order (more literal characters first, then more submatches, then
// more variables, then the greater path); it returns the routes in the
// same order.
func jsrCandidates(d *Dispatch, ws *restful.WebService, rest string) []restful.Route {
	var routes []restful.Route
	for _, r := range ws.Routes() {
		t, err := compileTemplate(relativePath(ws, r))
		if err != nil {
			continue
		}
		m := t.matcher.FindStringSubmatch(rest)
		if m == nil || (m[len(m)-1] != "" && m[len(m)-1] != "/") {
			continue
		}
		routes = append(routes, r)
		d.Candidates = append(d.Candidates, RouteScore{RouteRef: RouteRef{Method: r.Method, Path: r.Path, Operation: r.Operation},
			Groups: len(m) - 1, Literals: t.Literals, Vars: t.Vars, Regexp: t.Regexp})
	}
	return sortCandidates(d, routes, func(a, b RouteScore) bool {
		switch {
		case a.Literals != b.Literals:
			return a.Literals > b.Literals
		case a.Groups != b.Groups:
			return a.Groups > b.Groups
		case a.Vars != b.Vars:
			return a.Vars > b.Vars
		}
		return a.Path > b.Path
	})
}
