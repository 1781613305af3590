package serverchain

import (
	"fmt"
	"strings"

	restful "github.com/emicklei/go-restful/v3"
)

// The servers of the chain as upstream names them (the names its generic
// servers are built with), and the end of the chain.
const (
	nameAPIExtensions = "apiextensions-apiserver"
	nameKubeAPIServer = "kube-apiserver"
	nameAggregator    = "kube-aggregator"
	nameNotFound      = "the not-found handler"
)

// webServices lists c's WebServices as "<root path> (<n> routes)", in
// the order they were added.
func webServices(c *restful.Container) string {
	var out []string
	for _, ws := range c.RegisteredWebServices() {
		out = append(out, ws.RootPath()+" ("+routes(len(ws.Routes()))+")")
	}
	return strings.Join(out, ", ")
}

// describeAPIExtensions is what the apiextensions server serves, read
// from its Container.
func describeAPIExtensions(c *restful.Container) string {
	return "go-restful WebServices " + webServices(c) +
		"; custom resources, under /apis, by its CRD handler outside go-restful"
}

// describeKubeAPIServer is what kube-apiserver serves, read from its
// Container: where the core (legacy) group's routes are, and how many
// group-versions are under /apis.
func describeKubeAPIServer(c *restful.Container) string {
	coreRoutes, groups := 0, 0
	for _, ws := range c.RegisteredWebServices() {
		switch p := ws.RootPath(); {
		case p == "/api/v1":
			coreRoutes = len(ws.Routes())
		case strings.HasPrefix(p, "/apis/") && strings.Count(p, "/") == 3:
			groups++
		}
	}
	return fmt.Sprintf("the core (legacy) group at /api/v1: WebService /api/v1 (%s), installed by "+
		"apiserver's InstallAPIGroups in the same loop as the other groups (upstream: InstallLegacyAPIGroup, "+
		"called by controlplane's InstallAPIs for the group named \"\"); %d group-versions under /apis; "+
		"its post-start hooks registered", routes(coreRoutes), groups)
}

// describeAggregator is what the aggregator serves, read from its
// Container, and what wraps it.
func describeAggregator(c *restful.Container) string {
	return "go-restful WebServices " + webServices(c) +
		"; /apis and each APIService's path; /healthz, /livez, /readyz and /metrics on its own mux; " +
		"the handler chain's filters wrap it: every request enters the chain here"
}

// routes is "1 route" or "<n> routes".
func routes(n int) string {
	if n == 1 {
		return "1 route"
	}
	return fmt.Sprintf("%d routes", n)
}
