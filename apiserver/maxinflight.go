package apiserver

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// withMaxInFlight limits concurrent non-watch requests, read-only and
// mutating separately as kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight do; past the limit it answers 429 with
// Retry-After: 1.
func withMaxInFlight(h http.Handler, s *Server) http.Handler {
	readOnly := make(chan struct{}, s.cfg.MaxRequestsInFlight)
	mutating := make(chan struct{}, s.cfg.MaxMutatingRequestsInFlight)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		slots := readOnly
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			slots = mutating
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			h.ServeHTTP(w, r)
		default:
			traceFrom(r.Context()).step("limited", "failed", fmt.Sprintf("more than %d requests of this kind in flight", cap(slots)))
			w.Header().Set("Retry-After", strconv.Itoa(1))
			s.writeError(w, r, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
		}
	})
}
