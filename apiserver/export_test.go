package apiserver

import "net/http"

// HandlerWithoutAggregator is the handler chain around kube-apiserver
// (which delegates to the apiextensions server), without the aggregator in
// front: for the benchmark that measures what the aggregator's hop costs.
func (s *Server) HandlerWithoutAggregator() http.Handler {
	return s.withFilters(s.chain[1])
}
