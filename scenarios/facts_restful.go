package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/flow"
)

// restfulRouteFact is what go-restful chose in the step's
// restfulDispatch, with Router (the step's first router when ""): the
// route, "GET /api/v1/namespaces/{namespace}/pods", or, when it chose
// none, the status code of its error, "404" or "405" (as the
// restfulRoute expectation reads it).
type restfulRouteFact struct{ Router string }

// validRouteValue accepts a route, an HTTP method and a path
// ("GET /api/v1/pods"), or an HTTP status code.
func validRouteValue(v string) bool {
	method, path, ok := strings.Cut(v, " ")
	if !ok {
		return validStatusCode(v)
	}
	return slices.Contains(httpMethods, method) && strings.HasPrefix(path, "/") && !strings.ContainsAny(path, " \t\n")
}

func parseRestfulRouteFact(d *questionDoc, n *yaml.Node) (fact, error) {
	router, err := d.Router.oneOf(valueOf(n, "router"), "", restfulRouters[:2])
	return restfulRouteFact{router}, err
}

func (f restfulRouteFact) about() flow.Text {
	who := f.Router
	if who == "" {
		who = "go-restful"
	}
	return flow.Text{En: fmt.Sprintf("route %s chose (the status code when none)", who),
		Zh: fmt.Sprintf("%s 选中的路由（没有路由时为状态码）", who)}
}

func (f restfulRouteFact) look(_ context.Context, _ *player, res *StepResult) (string, bool, <-chan struct{}) {
	d, why := labDispatch(res, f.Router)
	switch {
	case d == nil:
		return why, false, nil
	case d.Route != nil:
		return d.Route.String(), true, nil
	case d.Err != nil:
		return strconv.Itoa(d.Err.Code), true, nil
	}
	return "no route and no error", false, nil
}
