package restfullab

import (
	"regexp"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// Curly dispatches req on webServices (a Container's, in its order) with
// restful.CurlyRouter, the router of kube-apiserver's Containers, and
// recomputes what it looked at. It is safe for concurrent use if no one
// adds routes to the WebServices meanwhile.
func Curly(webServices []*restful.WebService, req Request) *Dispatch {
	d := &Dispatch{Router: CurlyRouter, Request: req}
	reqTokens := tokens(req.Path)
	best, bestScore := -1, -1
	for i, ws := range webServices {
		ok, score := curlyWebServiceScore(reqTokens, tokens(ws.RootPath()))
		d.WebServices = append(d.WebServices, WebServiceScore{RootPath: ws.RootPath(), Matches: ok, Score: score})
		if ok && score > bestScore {
			best, bestScore = i, score
		}
	}
	hreq := req.httpRequest()
	ws, route, err := restful.CurlyRouter{}.SelectRoute(webServices, hreq)
	d.setResult(ws, route, err)
	if route != nil {
		d.Params = curlyParams(route, req.Path)
	}
	if best < 0 {
		d.RecomputedCode = 404
		d.agree("")
		return d
	}
	routes := curlyCandidates(d, webServices[best], reqTokens)
	if len(routes) == 0 {
		d.RecomputedCode = 404
	} else if i, code := detectRoute(d.Candidates, routes, hreq); i >= 0 {
		d.Recomputed = &RouteRef{Method: routes[i].Method, Path: routes[i].Path, Operation: routes[i].Operation}
	} else {
		d.RecomputedCode = code
	}
	d.agree(webServices[best].RootPath())
	return d
}

// curlyCandidates sets d.Candidates to the routes of ws whose path
// matches reqTokens, in CurlyRouter's order (curly_route.go: more static
// segments first, then more variables, then the greater path), and
// returns those routes in the same order.
func curlyCandidates(d *Dispatch, ws *restful.WebService, reqTokens []string) []restful.Route {
	var routes []restful.Route
	for _, r := range ws.Routes() {
		ok, params, static := curlyRouteMatch(tokens(r.Path), reqTokens, customVerb.MatchString(r.Path))
		if ok {
			routes = append(routes, r)
			d.Candidates = append(d.Candidates, RouteScore{
				RouteRef: RouteRef{Method: r.Method, Path: r.Path, Operation: r.Operation}, Static: static, Params: params})
		}
	}
	return sortCandidates(d, routes, func(a, b RouteScore) bool {
		if a.Static != b.Static {
			return a.Static > b.Static
		}
		if a.Params != b.Params {
			return a.Params > b.Params
		}
		return a.Path > b.Path
	})
}

// curlyWebServiceScore is CurlyRouter's computeWebserviceScore: a
// WebService matches when each segment of its root path matches the
// request's (a variable takes any non-empty one); a literal segment at i
// of n scores (n-i)×10, a variable 1, and 1 more if its expression
// matches.
func curlyWebServiceScore(reqTokens, rootTokens []string) (bool, int) {
	if len(rootTokens) > len(reqTokens) {
		return false, 0
	}
	score := 0
	for i, rt := range rootTokens {
		qt := reqTokens[i]
		switch {
		case qt == "" && rt == "":
			score++
		case strings.HasPrefix(rt, "{"):
			if qt == "" {
				return false, score
			}
			score++
			if colon := strings.Index(rt, ":"); colon != -1 {
				if ok, _ := curlyTokenRegexp(rt, colon, qt); ok {
					score++
				}
			}
		case qt != rt:
			return false, score
		default:
			score += (len(rootTokens) - i) * 10
		}
	}
	return true, score
}

// curlyRouteMatch is CurlyRouter's matchesRouteByPathTokens: whether the
// route's segments match the request's (a longer request only if the
// route ends in a {name:*} variable), with the number of variables and of
// literal segments. A plain variable takes any segment, even an empty
// one; a custom verb (":verb" at the end of the path) must be the
// request segment's too and counts as a literal.
func curlyRouteMatch(routeTokens, reqTokens []string, customVerbs bool) (ok bool, params, static int) {
	if len(routeTokens) < len(reqTokens) {
		n := len(routeTokens)
		if n == 0 || !strings.HasSuffix(routeTokens[n-1], "*}") {
			return false, 0, 0
		}
	}
	for i, rt := range routeTokens {
		if i == len(reqTokens) {
			return false, 0, 0
		}
		qt := reqTokens[i]
		if customVerbs && customVerb.MatchString(rt) {
			if !matchesCustomVerb(rt, qt) {
				return false, 0, 0
			}
			static++
			qt, rt = removeCustomVerb(qt), removeCustomVerb(rt)
		}
		if !strings.HasPrefix(rt, "{") {
			if qt != rt {
				return false, 0, 0
			}
			static++
			continue
		}
		params++
		if colon := strings.Index(rt, ":"); colon != -1 {
			matches, rest := curlyTokenRegexp(rt, colon, qt)
			if !matches {
				return false, 0, 0
			}
			if rest {
				break
			}
		}
	}
	return true, params, static
}

// curlyTokenRegexp matches a {name:re} token against a request segment:
// re "*" takes the segment and all after it; another re must match the
// segment (anywhere in it: go-restful does not anchor it).
func curlyTokenRegexp(rt string, colon int, qt string) (matches, rest bool) {
	re := rt[colon+1 : len(rt)-1]
	if re == "*" {
		return true, true
	}
	m, err := regexp.Compile(re)
	if err != nil {
		return false, false
	}
	return m.MatchString(qt), false
}

// curlyParams are the path parameters Container.dispatch gives route's
// function for path: CurlyRouter extracts none itself, so they come from
// go-restful's default path processor, which reads each variable of the
// route's path from the request segment at its position ({name:*} takes
// the rest of the path).
func curlyParams(route *restful.Route, path string) map[string]string {
	reqTokens := tokens(path)
	params := map[string]string{}
	cv := customVerb.MatchString(route.Path)
	for i, key := range tokens(route.Path) {
		value := ""
		if i < len(reqTokens) {
			value = reqTokens[i]
		}
		if cv && customVerb.MatchString(key) {
			key, value = removeCustomVerb(key), removeCustomVerb(value)
		}
		start := strings.Index(key, "{")
		if start == -1 {
			continue
		}
		if colon := strings.Index(key, ":"); colon != -1 {
			if key[colon+1:len(key)-1] == "*" {
				params[key[1:colon]] = strings.Join(reqTokens[min(i, len(reqTokens)):], "/")
				break
			}
			params[key[1:colon]] = value
			continue
		}
		end := strings.Index(key, "}")
		suffix := len(key) - end - 1
		if start <= len(value)-suffix {
			params[key[start+1:end]] = value[start : len(value)-suffix]
		}
	}
	return params
}
