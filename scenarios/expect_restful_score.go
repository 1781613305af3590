package scenarios

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/restfullab"
)

// RestfulScoreExpectation: in the step's restfulDispatch with Router (as
// in RestfulRouteExpectation), the WebService (when Route is "") or the
// route (among those whose path matched) has every key given: CurlyRouter's
// score of a WebService, static segments and variables of a route;
// RouterJSR311's submatches, literal characters and variables of either;
// and a route's Rank, its place in the router's order (1: first). Narration
// that quotes a score states it here, so a run that says otherwise fails.
type RestfulScoreExpectation struct {
	Router, WebService, Route string
	// Keys are the keys given, by field name (score, static, vars,
	// submatches, literals, rank).
	Keys map[string]int
}

var _ resultChecker = (*RestfulScoreExpectation)(nil)

// restfulScoreDoc is restfulScore as written.
type restfulScoreDoc struct {
	labTargetDoc `yaml:",inline"`
	Score        *integer `yaml:"score"`
	Static       *integer `yaml:"static"`
	Vars         *integer `yaml:"vars"`
	Submatches   *integer `yaml:"submatches"`
	Literals     *integer `yaml:"literals"`
	Rank         *integer `yaml:"rank"`
}

// restfulScoreCounters are the keys of restfulScore after its target,
// in the order messages list them.
var restfulScoreCounters = docKeys[restfulScoreDoc]()[3:]

func (e *RestfulScoreExpectation) Kind() string { return "restfulScore" }
func (e *RestfulScoreExpectation) String() string {
	what := "WebService " + e.WebService
	if e.Route != "" {
		what = "route " + e.Route
	}
	if e.Router != "" {
		what = e.Router + " " + what
	}
	var keys []string
	for _, k := range restfulScoreCounters {
		if v, ok := e.Keys[k]; ok {
			keys = append(keys, fmt.Sprintf("%s %d", k, v))
		}
	}
	return fmt.Sprintf("restfulScore of %s: %s", what, strings.Join(keys, ", "))
}

// parseRestfulScore reads {router, webService | route, score, static,
// vars, submatches, literals, rank}: a WebService or a route, and at least
// one key (score only for a WebService; static and rank only for a
// route).
func parseRestfulScore(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[restfulScoreDoc](n)
	if err != nil {
		return nil, err
	}
	e := &RestfulScoreExpectation{WebService: d.WebService.or(""), Route: d.Route.or(""), Keys: map[string]int{}}
	if e.Router, err = d.router(n); err != nil {
		return nil, err
	}
	if (e.WebService == "") == (e.Route == "") {
		return nil, errAt(n, "give exactly one of webService and route")
	}
	counters := map[string]*integer{"score": d.Score, "static": d.Static, "vars": d.Vars, "submatches": d.Submatches, "literals": d.Literals, "rank": d.Rank}
	for _, k := range restfulScoreCounters {
		v := counters[k]
		if v == nil {
			continue
		}
		if e.Route == "" && (k == "static" || k == "rank") || e.Route != "" && k == "score" {
			return nil, errAbout(valueOf(n, k), keyOf(n, k), "not a key of a %s", map[bool]string{true: "route", false: "WebService"}[e.Route != ""])
		}
		e.Keys[k] = int(*v)
	}
	if len(e.Keys) == 0 {
		return nil, errAt(n, "give at least one of %s", strings.Join(restfulScoreCounters, ", "))
	}
	return e, nil
}

// checkResult finds the WebService or route and compares its keys.
func (e *RestfulScoreExpectation) checkResult(res *StepResult) (string, bool) {
	d, why := labDispatch(res, e.Router)
	if d == nil {
		return why, false
	}
	got, why := e.keysOf(d)
	if got == nil {
		return why, false
	}
	var bad []string
	for _, k := range restfulScoreCounters {
		want, ok := e.Keys[k]
		if ok && got[k] != want {
			bad = append(bad, fmt.Sprintf("%s %d", k, got[k]))
		}
	}
	if len(bad) > 0 {
		return fmt.Sprintf("%s: %s", d.Router, strings.Join(bad, ", ")), false
	}
	return "", true
}

// keysOf returns the keys of e's WebService or route in d, or nil and
// what d has instead.
func (e *RestfulScoreExpectation) keysOf(d *restfullab.Dispatch) (map[string]int, string) {
	if e.Route == "" {
		var matching []string
		for _, ws := range d.WebServices {
			if !ws.Matches {
				continue
			}
			if ws.RootPath == e.WebService {
				return map[string]int{"score": ws.Score, "submatches": ws.Groups, "literals": ws.Literals, "vars": ws.Vars}, ""
			}
			matching = append(matching, ws.RootPath)
		}
		return nil, fmt.Sprintf("%s: WebService %s does not match the path (those that do: %s)", d.Router, e.WebService, strings.Join(matching, ", "))
	}
	var names []string
	for i, c := range d.Candidates {
		if c.RouteRef.String() != e.Route {
			names = append(names, c.RouteRef.String())
			continue
		}
		vars := c.Params
		if d.Router == restfullab.RouterJSR311 {
			vars = c.Vars
		}
		return map[string]int{"static": c.Static, "vars": vars, "submatches": c.Groups, "literals": c.Literals, "rank": i + 1}, ""
	}
	return nil, fmt.Sprintf("%s: route %s is not among those whose path matched (%s)", d.Router, e.Route, strings.Join(names, "; "))
}
