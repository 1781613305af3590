// Package apiextensionsserver is the apiextensions server of the
// delegation chain (package serverchain builds the chain), as upstream's
// apiextensions-apiserver: apiextensions.k8s.io/v1
// (customresourcedefinitions) from its own go-restful Container, and
// everything else through the crdHandler, which serves the custom
// resources and discovery of the established CRDs without go-restful and
// hands what no CRD serves to its delegate (the not-found handler). Its
// controllers run from the post-start hooks start-apiextensions-informers,
// start-apiextensions-controllers and crd-informer-synced
// (controller.go). The schemas, defaulting, pruning and printer columns
// of custom resources are package apiextensions'; their stores are package
// registry's.
package apiextensionsserver

import (
	"net/http"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/kubesim/kubesim/apiserver"
)

// Server is the apiextensions server.
type Server struct {
	crds      *crdHandler
	container *restful.Container
	director  http.Handler
}

// New builds the apiextensions server on g, in front of delegate, and
// registers its post-start hooks on g. It panics if a hook cannot be
// added (a name registered twice), as upstream's AddPostStartHookOrDie.
func New(g *apiserver.Server, delegate http.Handler) *Server {
	c := g.NewContainer()
	c.Add(g.GroupWebService(g.ExtensionsGroup()))
	c.Add(g.GroupDiscoveryService(g.ExtensionsGroup()))
	crds := newCRDHandler(g, delegate)
	if err := newCRDController(g, crds).addHooks(); err != nil {
		panic("apiserver: apiextensions hooks: " + err.Error())
	}
	return &Server{crds: crds, container: c, director: apiserver.NewDirector(apiserver.ServerAPIExtensions, c, crds)}
}

// Container is the apiextensions server's go-restful Container, for
// looking at: callers must not change it.
func (s *Server) Container() *restful.Container { return s.container }

// ServeHTTP serves a request that reached the apiextensions server: its
// Container's paths, else custom resources and their discovery, else the
// delegate.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.director.ServeHTTP(w, r) }
