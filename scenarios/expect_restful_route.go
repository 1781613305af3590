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

// restfulRouteDoc is restfulRoute as written.
type restfulRouteDoc struct {
	labTargetDoc `yaml:",inline"`
	Params       map[mapKey]scalarText `yaml:"params"`
	Code         *integer              `yaml:"code"`
}

// labTargetDoc is the router, and the WebService or route, that
// restfulRoute and restfulScore are about.
type labTargetDoc struct {
	Router     *str `yaml:"router"`
	WebService *str `yaml:"webService"`
	Route      *str `yaml:"route"`
}

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
func parseRestfulRoute(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[restfulRouteDoc](n)
	if err != nil {
		return nil, err
	}
	e := &RestfulRouteExpectation{WebService: d.WebService.or(""), Route: d.Route.or("")}
	if e.Router, err = d.router(n); err != nil {
		return nil, err
	}
	if d.Params != nil {
		e.Params = stringMap(d.Params)
	}
	if d.Code != nil {
		if c := *d.Code; http.StatusText(int(c)) == "" || c < 400 {
			return nil, errAt(valueOf(n, "code"), "%d is not an HTTP error status", c)
		}
		e.Code = int(*d.Code)
	}
	if (e.Route == "") == (e.Code == 0) {
		return nil, errAt(n, "give exactly one of route and code")
	}
	if e.Code != 0 && e.Params != nil {
		return nil, errAt(n, "params come with a route, not with a code")
	}
	return e, nil
}

// router returns the router d names, "" if it names none.
func (d labTargetDoc) router(n *yaml.Node) (string, error) {
	return d.Router.oneOf(valueOf(n, "router"), "", restfulRouters[:2])
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
