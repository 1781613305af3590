package filters

import (
	"fmt"
	"net/http"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubesim/kubesim/apiserver/request"
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
// The control plane's own requests have seats of their own, as API
// Priority and Fairness (on by default upstream) gives them priority
// levels of their own: the scheduler's and controller manager's leader
// election, the nodes' heartbeats, the nodes' other requests, and the
// scheduler's and controllers' work (priorityLevelOf), each with its
// share of the server's limits (priorityLevels). Then a burst of
// one kind (ten thousand kubelets renewing their Leases) cannot starve
// another (the scheduler's bindings, a leader's renewal). kubesim has
// a queue per level: a request finding its level full waits for a seat,
// at most a quarter of the request timeout (APF's), among at most as
// many waiters as the level's queues hold, and is answered 429 after
// that; the waiters are served in turn, with no fair queuing between the
// flows of a level; every other request keeps the two limits above,
// without a queue.
func withMaxInFlight(h http.Handler, c *Config) http.Handler {
	pools := newSeatPools(c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight)
	// APF's queue wait is a quarter of the request timeout.
	queueWait := c.RequestTimeout / 4
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isLongRunning(r) {
			h.ServeHTTP(w, r)
			return
		}
		slots, kind := pools.of(r), kindOf(r)
		if slots.acquire(r.Context(), queueWait) {
			defer slots.release()
			c.Inflight.add(kind, 1)
			defer c.Inflight.add(kind, -1)
			h.ServeHTTP(w, r)
			return
		}
		if isSystemMaster(r) {
			c.Inflight.add(kind, 1)
			defer c.Inflight.add(kind, -1)
			h.ServeHTTP(w, r)
			return
		}
		request.TraceFrom(r.Context()).Step("limited", "failed", fmt.Sprintf("more than %d requests of this kind in flight", cap(slots.free)))
		w.Header().Set("Retry-After", strconv.Itoa(1))
		c.WriteError(w, r, apierrors.NewTooManyRequests("Too many requests, please try again later.", 1))
	})
}

// isSystemMaster says whether the request's user is in system:masters.
func isSystemMaster(r *http.Request) bool {
	a, _ := request.AttributesFrom(r.Context())
	return a.User.InGroup(user.SystemPrivilegedGroup)
}
