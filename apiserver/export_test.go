package apiserver

import (
	"net/http"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// HandlerWithoutAggregator is the handler chain around kube-apiserver
// (which delegates to the apiextensions server), without the aggregator in
// front: for the benchmark that measures what the aggregator's hop costs.
func (s *Server) HandlerWithoutAggregator() http.Handler {
	return s.withFilters(s.chain[1])
}

// AdmissionChain is the admission chain s runs.
func AdmissionChain(s *Server) *admission.Chain { return s.admission }
