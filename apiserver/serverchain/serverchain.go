// Package serverchain builds kubesim's API server as kube-apiserver's
// CreateServerChain builds it: three servers, each with its own go-restful
// Container, chained by delegation on one generic server (package
// apiserver: the stores, the filters, the handlers every resource shares).
// A request passes the filters once, then enters the aggregator; what the
// aggregator does not serve goes to kube-apiserver, then to the
// apiextensions server, then to the not-found handler.
package serverchain

import (
	"fmt"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregatorserver"
	"github.com/kubesim/kubesim/apiserver/apiextensionsserver"
	"github.com/kubesim/kubesim/apiserver/kubeapiserver"
)

// New builds the server on cfg and binds its listener, so URL is known
// before Run. The caller must Run or Close it.
func New(cfg *apiserver.Config) (*apiserver.Server, error) {
	s, err := apiserver.NewGeneric(cfg)
	if err != nil {
		return nil, err
	}
	// Inside out: each server gets the next one as its delegate.
	ext := apiextensionsserver.New(s, apiserver.NotFoundHandler()) // CRDs and custom resources
	kube := kubeapiserver.New(s, ext)                              // the built-in groups
	agg := aggregatorserver.New(s, kube, s.ListedPaths())          // APIServices: local ones delegate, others are proxied
	if err := kube.AddPostStartHooks(); err != nil {
		s.Close()
		return nil, fmt.Errorf("apiserver: %w", err)
	}
	s.InstallChain(agg, kube, ext)
	return s, nil
}
