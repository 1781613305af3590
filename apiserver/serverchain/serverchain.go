// Package serverchain builds kubesim's API server as kube-apiserver's
// CreateServerChain builds it: three servers, each with its own go-restful
// Container, chained by delegation on one generic server (package
// apiserver: the stores, the filters, the handlers every resource shares).
// A request passes the filters once, then enters the aggregator; what the
// aggregator does not serve goes to kube-apiserver, then to the
// apiextensions server, then to the not-found handler. Each server built
// is reported to the generic server's OnStartup function
// (StartupServerBuilt), in the order New builds them.
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
	// Inside out, as CreateServerChain: each server gets the one built
	// before it as its delegate.
	ext := apiextensionsserver.New(s, apiserver.NotFoundHandler()) // CRDs and custom resources
	s.ReportServerBuilt(nameAPIExtensions, nameNotFound, describeAPIExtensions(ext.Container()))
	kube := kubeapiserver.New(s, ext) // the built-in groups
	// As upstream's kube-apiserver adds its hooks while it is built:
	// /readyz lists them after the apiextensions server's, before the
	// aggregator's.
	if err := kube.AddPostStartHooks(); err != nil {
		s.Close()
		return nil, fmt.Errorf("apiserver: %w", err)
	}
	s.ReportServerBuilt(nameKubeAPIServer, nameAPIExtensions, describeKubeAPIServer(s.RestfulContainer()))
	agg := aggregatorserver.New(s, kube, s.ListedPaths()) // APIServices: local ones delegate, others are proxied
	s.InstallChain(agg, kube, ext)
	s.ReportServerBuilt(nameAggregator, nameKubeAPIServer, describeAggregator(agg.Container()))
	return s, nil
}
