package apiserver

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"
)

// withMaxInFlight limits concurrent non-watch requests, read-only and
// mutating separately as kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight do; past the limit it answers 429 with
// Retry-After: 1, except to a member of system:masters, whom
// kube-apiserver's filter serves anyway ("a super-admin or a loopback
// connection" should always get an answer). The user is the one the
// request acts as: impersonation has already happened, so that clients
// impersonating nodes over the admin's connection (hollow kubelets) are
// limited as nodes.
//
// The leader election of the scheduler and the controller manager (their
// get, create and update of Leases) has seats of its own, so that a
// cluster busy with other requests does not starve their renewals and
// make them lose their Leases: what API Priority and Fairness, on by
// default upstream, does with its system-leader-election flow schema and
// leader-election priority level (10 of the 245 concurrency shares:
// leaderElectionSeats of this server's limits).
func withMaxInFlight(h http.Handler, s *Server) http.Handler {
	readOnly := make(chan struct{}, s.cfg.MaxRequestsInFlight)
	mutating := make(chan struct{}, s.cfg.MaxMutatingRequestsInFlight)
	election := make(chan struct{}, leaderElectionSeats(s.cfg.MaxRequestsInFlight+s.cfg.MaxMutatingRequestsInFlight))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		slots := readOnly
		switch {
		case isLeaderElection(r):
			slots = election
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			slots = mutating
		}
		select {
		case slots <- struct{}{}:
			defer func() { <-slots }()
			h.ServeHTTP(w, r)
		default:
			if isSystemMaster(r) {
				h.ServeHTTP(w, r)
				return
			}
			traceFrom(r.Context()).step("limited", "failed", fmt.Sprintf("more than %d requests of this kind in flight", cap(slots)))
			w.Header().Set("Retry-After", strconv.Itoa(1))
			s.writeError(w, r, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
		}
	})
}

// isSystemMaster says whether the request's user is in system:masters.
func isSystemMaster(r *http.Request) bool {
	a, _ := requestAttributes(r.Context())
	return a.User.InGroup(user.SystemPrivilegedGroup)
}

// leaderElectionSeats is the leader-election priority level's share of
// limit seats in APF's default configuration: 10 shares of 245, at
// least one.
func leaderElectionSeats(limit int) int { return max(1, (limit*10+244)/245) }

// leaderElectionUsers are the users of APF's system-leader-election flow
// schema (besides kube-system's service accounts, which kubesim's
// components do not use).
var leaderElectionUsers = []string{user.KubeControllerManager, user.KubeScheduler}

// isLeaderElection says whether r is a get, create or update of a Lease
// by one of leaderElectionUsers: the requests of that flow schema.
func isLeaderElection(r *http.Request) bool {
	a, ok := requestAttributes(r.Context())
	if !ok || a.User == nil || !a.ResourceRequest || a.APIGroup != "coordination.k8s.io" || a.Resource != "leases" || a.Subresource != "" {
		return false
	}
	switch a.Verb {
	case "get", "create", "update":
		return slices.Contains(leaderElectionUsers, a.User.Name)
	}
	return false
}
