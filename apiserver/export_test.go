package apiserver

import "net/http"

// HandlerWithoutAggregator is the handler chain around kube-apiserver
// alone, delegating to the not-found handler: the server as it was before
// the delegation chain, for the benchmark that measures what the chain
// costs.
func (s *Server) HandlerWithoutAggregator() http.Handler {
	return s.withFilters(s.KubeAPIServer(NotFoundHandler()))
}
