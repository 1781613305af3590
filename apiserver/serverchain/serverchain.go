// Package serverchain builds kubesim's API server as kube-apiserver's
// CreateServerChain builds it: three servers, each with its own go-restful
// Container, chained by delegation on one generic server (package
// apiserver: the stores, the filters, the handlers every resource shares).
// A request passes the filters once, then enters the aggregator; what the
// aggregator does not serve goes to kube-apiserver, then to the
// apiextensions server, then to the not-found handler.
package serverchain

import (
	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregatorserver"
	"github.com/kubesim/kubesim/apiserver/apiextensionsserver"
)

// New builds the server on cfg and binds its listener, so URL is known
// before Run. The caller must Run or Close it.
func New(cfg *apiserver.Config) (*apiserver.Server, error) {
	s, err := apiserver.NewGeneric(cfg)
	if err != nil {
		return nil, err
	}
	// Inside out: each server gets the next one as its delegate.
	h := apiserver.NotFoundHandler()
	h = apiextensionsserver.New(s, h)               // CRDs and custom resources
	h = s.KubeAPIServer(h)                          // the built-in groups
	h = aggregatorserver.New(s, h, s.ListedPaths()) // APIServices: local ones delegate, others are proxied
	s.InstallChain(h)
	return s, nil
}
