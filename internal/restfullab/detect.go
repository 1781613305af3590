package restfullab

import (
	"net/http"
	"sort"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// detectRoute recomputes go-restful's detectRoute (jsr311.go) on the
// routes whose path matched, in the router's order: it keeps the routes
// whose If conditions hold, then those of the request's method (none:
// 405), then those that consume its Content-Type (none: 415), then those
// that produce what its Accept takes (none: 406), and takes the first one
// left. It sets each candidate's Outcome and returns the index of the
// chosen route, or -1 and the status code go-restful answers instead.
func detectRoute(cands []RouteScore, routes []restful.Route, req *http.Request) (int, int) {
	left := make([]int, 0, len(routes))
	for i := range routes {
		left = append(left, i)
	}
	checks := []struct {
		outcome string
		code    int
		keep    func(restful.Route) bool
	}{
		{OutcomeCondition, http.StatusNotFound, func(r restful.Route) bool { return conditionsHold(r, req) }},
		{OutcomeMethod, http.StatusMethodNotAllowed, func(r restful.Route) bool { return r.Method == req.Method }},
		{OutcomeContentType, http.StatusUnsupportedMediaType, func(r restful.Route) bool { return consumes(r, req.Header.Get("Content-Type")) }},
		{OutcomeAccept, http.StatusNotAcceptable, func(r restful.Route) bool { return produces(r, req.Header.Get("Accept")) }},
	}
	for _, c := range checks {
		var kept []int
		for _, i := range left {
			if c.keep(routes[i]) {
				kept = append(kept, i)
			} else {
				cands[i].Outcome = c.outcome
			}
		}
		if len(kept) == 0 {
			return -1, c.code
		}
		left = kept
	}
	cands[left[0]].Outcome = OutcomeChosen
	for _, i := range left[1:] {
		cands[i].Outcome = OutcomeLater
	}
	return left[0], 0
}

// sortCandidates sorts d.Candidates, and routes (the same routes, in the
// same order) with them, by before: stably, so that equals keep the
// WebService's order, as go-restful's sort.Sort does for the few
// candidates one path has.
func sortCandidates(d *Dispatch, routes []restful.Route, before func(a, b RouteScore) bool) []restful.Route {
	order := make([]int, len(routes))
	for i := range order {
		order[i] = i
	}
	c := d.Candidates
	sort.SliceStable(order, func(i, j int) bool { return before(c[order[i]], c[order[j]]) })
	sortedRoutes, sortedCands := make([]restful.Route, len(order)), make([]RouteScore, len(order))
	for i, o := range order {
		sortedRoutes[i], sortedCands[i] = routes[o], c[o]
	}
	d.Candidates = sortedCands
	return sortedRoutes
}

// conditionsHold says whether every If function of r accepts req.
func conditionsHold(r restful.Route, req *http.Request) bool {
	for _, f := range r.If {
		if !f(req) {
			return false
		}
	}
	return true
}

// mediaTypes calls f with each media type of a header value (a list
// separated by commas, parameters after ';' left out, spaces trimmed)
// until f returns true.
func mediaTypes(header string, f func(string) bool) bool {
	for _, m := range strings.Split(header, ",") {
		m, _, _ = strings.Cut(m, ";")
		if f(strings.Trim(m, " ")) {
			return true
		}
	}
	return false
}

// consumes is Route.matchesContentType: a route that declares no
// Consumes takes anything; a request without a Content-Type is taken by
// GET, HEAD, OPTIONS, DELETE and TRACE routes, and otherwise counts as
// application/octet-stream. (A route may change that list of methods;
// kubesim's routes do not, and go-restful keeps it unexported.)
func consumes(r restful.Route, contentType string) bool {
	if len(r.Consumes) == 0 {
		return true
	}
	if contentType == "" {
		switch r.Method {
		case "GET", "HEAD", "OPTIONS", "DELETE", "TRACE":
			return true
		}
		contentType = restful.MIME_OCTET
	}
	return mediaTypes(contentType, func(m string) bool {
		for _, c := range r.Consumes {
			if c == "*/*" || c == m {
				return true
			}
		}
		return false
	})
}

// produces is Route.matchesAccept: no Accept is */*, which any route
// takes; otherwise one of the accepted types must be */* or one the
// route produces (a route producing */* takes any).
func produces(r restful.Route, accept string) bool {
	if accept == "" {
		accept = "*/*"
	}
	return mediaTypes(accept, func(m string) bool {
		if m == "*/*" {
			return true
		}
		for _, p := range r.Produces {
			if p == "*/*" || p == m {
				return true
			}
		}
		return false
	})
}
