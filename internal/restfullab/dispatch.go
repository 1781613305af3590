package restfullab

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	restful "github.com/emicklei/go-restful/v3"
)

// The routers the lab knows, by their go-restful type names.
const (
	CurlyRouter  = "CurlyRouter"
	RouterJSR311 = "RouterJSR311"
)

// Request is what a router looks at of a request: its method (GET when
// empty), URL path and the Content-Type and Accept headers ("" for none).
type Request struct {
	Method      string
	Path        string
	ContentType string
	Accept      string
}

// httpRequest is r as the *http.Request a router is given.
func (r Request) httpRequest() *http.Request {
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	req := &http.Request{Method: method, URL: &url.URL{Path: r.Path}, Header: http.Header{}, Host: "lab.invalid"}
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	if r.Accept != "" {
		req.Header.Set("Accept", r.Accept)
	}
	return req.WithContext(context.Background())
}

// RouteRef names a route: its method and full path (the WebService's root
// path and the route's own), and its operation.
type RouteRef struct {
	Method, Path, Operation string
}

// String is "GET /api/v1/namespaces/{namespace}/pods/{name}".
func (r RouteRef) String() string { return r.Method + " " + r.Path }

func refOf(r *restful.Route) *RouteRef {
	if r == nil {
		return nil
	}
	return &RouteRef{Method: r.Method, Path: r.Path, Operation: r.Operation}
}

// WebServiceScore is one WebService as the router scored it.
type WebServiceScore struct {
	RootPath string
	// Matches says whether the router could pick it at all.
	Matches bool
	// Score is CurlyRouter's (computeWebserviceScore): 10 × the number
	// of root path segments from it to the end for each literal segment
	// equal to the request's, 1 for a variable (2 if its expression
	// matches). The highest wins; of equal scores, the first.
	Score int
	// Groups, Literals and Vars are RouterJSR311's keys, compared in
	// that order, the highest winning: the number of submatches of the
	// root path's expression (with the whole match), the literal
	// characters of the root path, and its variables. Regexp is that
	// expression; FinalMatch what it left of the path for the routes.
	Groups, Literals, Vars int
	Regexp, FinalMatch     string
}

// Outcomes of a route whose path matched, in the checks of detectRoute
// (jsr311.go, which CurlyRouter calls too), in their order.
const (
	OutcomeChosen      = "chosen"
	OutcomeCondition   = "condition"    // one of its If functions said no
	OutcomeMethod      = "method"       // another HTTP method
	OutcomeContentType = "content type" // does not consume the Content-Type
	OutcomeAccept      = "accept"       // produces nothing Accept takes
	OutcomeLater       = "later"        // passed every check, after the chosen one
)

// RouteScore is one route whose path matched the request's, as the
// router scored it, and what detectRoute's checks did with it.
type RouteScore struct {
	RouteRef
	// Static and Params are CurlyRouter's keys (matchesRouteByPathTokens):
	// the literal segments and the variables of the route's path, more
	// static segments first, then more variables, then the greater path.
	Static, Params int
	// Groups, Literals and Vars are RouterJSR311's keys, highest first,
	// in this order of importance: the expression's submatches (without
	// the whole match), the literal characters, the variables; then the
	// greater path. Regexp is the expression of the route's own path.
	Groups, Literals, Vars int
	Regexp                 string
	// Outcome is one of the Outcome constants.
	Outcome string
}

// ServiceError is the error a router returned instead of a route: the
// status code and message Container.dispatch answers with, and the Allow
// header of a 405.
type ServiceError struct {
	Code    int
	Message string
	Allow   string
}

// Dispatch is what one router did with one request on the WebServices of
// a Container.
type Dispatch struct {
	Router  string
	Request Request
	// WebServices are all the Container's, in its order, with their
	// scores.
	WebServices []WebServiceScore
	// WebService is the root path of the WebService go-restful chose ("":
	// none matched the path).
	WebService string
	// Routes is how many routes that WebService has; each was matched
	// against the path.
	Routes int
	// Candidates are the routes whose path matched, in the order the
	// router sorted them (best first).
	Candidates []RouteScore
	// Route is the route go-restful chose; nil with Err when it chose
	// none. Params are its path parameters as Container.dispatch
	// extracts them.
	Route  *RouteRef
	Params map[string]string
	Err    *ServiceError
	// Recomputed is the route the lab's recomputation reached (nil:
	// none, with the status code RecomputedCode). Agrees says whether it
	// is go-restful's choice: the same WebService and route, or no route
	// and the same code.
	Recomputed     *RouteRef
	RecomputedCode int
	Agrees         bool
}

// setResult records go-restful's own result of SelectRoute.
func (d *Dispatch) setResult(ws *restful.WebService, route *restful.Route, err error) {
	if ws != nil {
		d.WebService = ws.RootPath()
		d.Routes = len(ws.Routes())
	}
	d.Route = refOf(route)
	if err != nil {
		se := &ServiceError{Code: http.StatusInternalServerError, Message: err.Error()}
		var serr restful.ServiceError
		if errors.As(err, &serr) {
			se = &ServiceError{Code: serr.Code, Message: serr.Message, Allow: serr.Header.Get("Allow")}
		}
		d.Err = se
	}
}

// agree sets Agrees: the recomputed WebService ws, route and code against
// go-restful's.
func (d *Dispatch) agree(ws string) {
	switch {
	case ws != d.WebService:
		d.Agrees = false
	case d.Route == nil || d.Recomputed == nil:
		d.Agrees = d.Route == nil && d.Recomputed == nil && d.Err != nil && d.Err.Code == d.RecomputedCode
	default:
		d.Agrees = *d.Route == *d.Recomputed
	}
}
