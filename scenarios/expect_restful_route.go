package scenarios

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/restfullab"
)

// RestfulRouteExpectation: the step's restfulDispatch with Router
// (CurlyRouter when the step ran it, else its only router) ended as
// said: go-restful chose Route ("GET /api/v1/namespaces/{namespace}/pods/{name}")
// in WebService, with exactly Params when they are given; or it chose no
// route and answered Code. The lab's recomputation must agree.
type RestfulRouteExpectation struct {
	Router, WebService, Route string
	Params                    map[string]string
	Code                      int
}

var _ resultChecker = (*RestfulRouteExpectation)(nil)

var restfulRouteKeys = []string{"router", "webService", "route", "params", "code"}

func (e *RestfulRouteExpectation) Kind() string { return "restfulRoute" }
func (e *RestfulRouteExpectation) String() string {
	var parts []string
	if e.Router != "" {
		parts = append(parts, e.Router)
	}
	if e.WebService != "" {
		parts = append(parts, "WebService "+e.WebService)
	}
	if e.Route != "" {
		parts = append(parts, "route "+e.Route)
	}
	if e.Params != nil {
		parts = append(parts, "params "+formatParams(e.Params))
	}
	if e.Code != 0 {
		parts = append(parts, fmt.Sprintf("no route, %d", e.Code))
	}
	return "restfulRoute " + strings.Join(parts, ", ")
}

// parseRestfulRoute reads {router, webService, route, params, code}:
// route or code, not both.
func parseRestfulRoute(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, restfulRouteKeys)
	if err != nil {
		return nil, err
	}
	e := &RestfulRouteExpectation{}
	if e.Router, err = parseLabRouter(l, fields, key); err != nil {
		return nil, err
	}
	if e.WebService, e.Route, err = parseLabTarget(l, fields, key); err != nil {
		return nil, err
	}
	if f, ok := fields["params"]; ok {
		if e.Params, err = l.stringMap(f.val, key+".params"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["code"]; ok {
		c, err := l.integer(f.val, key+".code")
		if err != nil {
			return nil, err
		}
		if http.StatusText(int(c)) == "" || c < 400 {
			return nil, l.errAt(f.val, "%s.code: %d is not an HTTP error status", key, c)
		}
		e.Code = int(c)
	}
	if (e.Route == "") == (e.Code == 0) {
		return nil, l.errAt(n, "%s: give exactly one of route and code", key)
	}
	if e.Code != 0 && e.Params != nil {
		return nil, l.errAt(n, "%s: params come with a route, not with a code", key)
	}
	return e, nil
}

// parseLabRouter reads the optional router field of a restful
// expectation.
func parseLabRouter(l *loader, fields map[string]field, key string) (string, error) {
	f, ok := fields["router"]
	if !ok {
		return "", nil
	}
	return l.oneOf(f.val, key+".router", restfulRouters[:2])
}

// labDispatch returns the dispatch of router ("" for the step's first)
// among the step's evidence.
func labDispatch(res *StepResult, router string) (*restfullab.Dispatch, string) {
	ev, _ := res.Evidence.(*restfulEvidence)
	if ev == nil || len(ev.Dispatches) == 0 {
		return nil, "no restfulDispatch in this step"
	}
	if router == "" {
		return ev.Dispatches[0], ""
	}
	for _, d := range ev.Dispatches {
		if d.Router == router {
			return d, ""
		}
	}
	return nil, fmt.Sprintf("the step's restfulDispatch did not run %s", router)
}

// checkResult compares the dispatch with what e says.
func (e *RestfulRouteExpectation) checkResult(res *StepResult) (string, bool) {
	d, why := labDispatch(res, e.Router)
	if d == nil {
		return why, false
	}
	got := fmt.Sprintf("%s: WebService %q, %s", d.Router, d.WebService, describeChoice(d))
	if d.Route != nil && d.Params != nil {
		got += ", params " + formatParams(d.Params)
	}
	switch {
	case !d.Agrees:
		return got + "; the lab's recomputation reached " + describeRecomputed(d), false
	case e.WebService != "" && d.WebService != e.WebService:
		return got, false
	case e.Code != 0:
		return got, d.Route == nil && d.Err != nil && d.Err.Code == e.Code
	case d.Route == nil || d.Route.String() != e.Route:
		return got, false
	case e.Params != nil && !maps.Equal(e.Params, d.Params):
		return got, false
	}
	return "", true
}

// formatParams is params as k=v, by key ("" for an empty value).
func formatParams(params map[string]string) string {
	keys := slices.Sorted(maps.Keys(params))
	out := make([]string, len(keys))
	for i, k := range keys {
		v := params[k]
		if v == "" {
			v = `""`
		}
		out[i] = k + "=" + v
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

// parseLabTarget reads the optional webService and route of a lab
// expectation (restfulRoute, restfulScore).
func parseLabTarget(l *loader, fields map[string]field, key string) (webService, route string, err error) {
	if err = l.optionalStr(fields, key, "webService", &webService); err != nil {
		return "", "", err
	}
	err = l.optionalStr(fields, key, "route", &route)
	return webService, route, err
}
