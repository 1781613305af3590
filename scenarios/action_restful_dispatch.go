package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/kubesim/kubesim/internal/restfullab"
)

// RestfulDispatchAction runs the go-restful dispatch lab on one request:
// what the router of kube-apiserver's real Container (CurlyRouter) does
// with it, and, if asked, what RouterJSR311 does with the same
// WebServices. No request is sent: the lab calls the router's
// SelectRoute, as Container.dispatch does, on the Container's
// WebServices.
type RestfulDispatchAction struct {
	Method, Path, ContentType, Accept string
	// Routers are restfullab.CurlyRouter, restfullab.RouterJSR311, or
	// both, in that order.
	Routers []string
}

var _ actionRunner = (*RestfulDispatchAction)(nil)

// restfulDispatchDoc is restfulDispatch as written.
type restfulDispatchDoc struct {
	Method      *str `yaml:"method"`
	Path        str  `yaml:"path" load:"required"`
	ContentType *str `yaml:"contentType"`
	Accept      *str `yaml:"accept"`
	Router      *str `yaml:"router"`
}

// restfulRouters are the values of restfulDispatch's router.
var restfulRouters = []string{restfullab.CurlyRouter, restfullab.RouterJSR311, "both"}

// restfulEvidence is a restful action's evidence for its step's
// expectations (StepResult.Evidence): one Dispatch per router, or the
// answers of the two Containers.
type restfulEvidence struct {
	Dispatches []*restfullab.Dispatch `json:"dispatches,omitempty"`
	Answers    []restfullab.Answer    `json:"answers,omitempty"`
}

func (a *RestfulDispatchAction) Kind() string { return "restfulDispatch" }
func (a *RestfulDispatchAction) String() string {
	routers := a.Routers[0]
	if len(a.Routers) > 1 {
		routers = "both routers"
	}
	s := fmt.Sprintf("restfulDispatch %s %s (%s", a.Method, a.Path, routers)
	if a.ContentType != "" {
		s += ", Content-Type: " + a.ContentType
	}
	if a.Accept != "" {
		s += ", Accept: " + a.Accept
	}
	return s + ")"
}

// parseRestfulDispatch reads {method, path, contentType, accept, router}:
// a GET of path (a URL path, starting with /, without a query) with
// CurlyRouter unless the fields say otherwise.
func parseRestfulDispatch(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d restfulDispatchDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &RestfulDispatchAction{Path: string(d.Path), ContentType: d.ContentType.or(""), Accept: d.Accept.or("")}
	if !strings.HasPrefix(a.Path, "/") || strings.ContainsAny(a.Path, "?#") {
		return nil, errAt(valueOf(n, "path"), "%q must be a URL path: start with / and have no query", a.Path)
	}
	var err error
	if a.Method, err = d.Method.oneOf(valueOf(n, "method"), "GET", httpMethods); err != nil {
		return nil, err
	}
	router, err := d.Router.oneOf(valueOf(n, "router"), restfullab.CurlyRouter, restfulRouters)
	if err != nil {
		return nil, err
	}
	a.Routers = []string{router}
	if router == "both" {
		a.Routers = []string{restfullab.CurlyRouter, restfullab.RouterJSR311}
	}
	return a, nil
}

// run dispatches the request with each router on the WebServices of the
// cluster's kube-apiserver Container and writes what each did to the
// transcript. It fails if the lab's recomputation does not reach the
// route go-restful chose (the lab would be showing wrong scores).
func (a *RestfulDispatchAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	var res StepResult
	c := p.cluster.RestfulContainer()
	if c == nil {
		return res, errors.New("the API server is not running")
	}
	webServices := c.RegisteredWebServices()
	req := restfullab.Request{Method: a.Method, Path: a.Path, ContentType: a.ContentType, Accept: a.Accept}
	ev := &restfulEvidence{}
	res.Evidence = ev
	lab := labLines{res: &res}
	lab.container(webServices, req.Path)
	for _, router := range a.Routers {
		d := restfullab.Curly(webServices, req)
		if router == restfullab.RouterJSR311 {
			d = restfullab.JSR311(webServices, req)
		}
		ev.Dispatches = append(ev.Dispatches, d)
		lab.dispatch(d)
		if !d.Agrees {
			return res, fmt.Errorf("the lab's recomputation of %s reached %s, go-restful chose %s", router, describeRecomputed(d), describeChoice(d))
		}
	}
	if len(ev.Dispatches) == 2 {
		lab.compare(ev.Dispatches[0], ev.Dispatches[1])
	}
	res.Message = dispatchSummary(ev.Dispatches)
	return res, nil
}

// dispatchSummary is each router's choice on one line, the step's result
// where only one line is shown (the TUI's).
func dispatchSummary(ds []*restfullab.Dispatch) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = d.Router + ": " + describeChoice(d)
	}
	return strings.Join(parts, "; ")
}

// describeChoice is go-restful's choice in d, for messages: the route, or
// the error code.
func describeChoice(d *restfullab.Dispatch) string {
	if d.Route != nil {
		return d.Route.String()
	}
	if d.Err != nil {
		return fmt.Sprintf("no route (%d)", d.Err.Code)
	}
	return "nothing"
}

// describeRecomputed is the lab's recomputed choice in d, for messages.
func describeRecomputed(d *restfullab.Dispatch) string {
	if d.Recomputed != nil {
		return d.Recomputed.String()
	}
	return fmt.Sprintf("no route (%d)", d.RecomputedCode)
}
