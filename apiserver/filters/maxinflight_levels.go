package filters

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// The priority levels of APF's default configuration
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap) that kubesim gives
// seats of their own.
const (
	levelLeaderElection = "leader-election"
	levelNodeHigh       = "node-high"
	levelSystem         = "system"
	levelWorkloadHigh   = "workload-high"
)

// priorityLevels are those levels' nominal concurrency shares, of the
// 245 all of APF's default levels hold, and how many requests may wait
// for their seats (queues × queueLengthLimit of each).
var priorityLevels = map[string]struct{ shares, queued int }{
	levelLeaderElection: {10, 16 * 50}, levelNodeHigh: {40, 64 * 50},
	levelSystem: {30, 64 * 50}, levelWorkloadHigh: {40, 128 * 50},
}

// seatsOf is a level's share of limit seats (the server's two limits
// together, as APF's server concurrency limit), at least one.
func seatsOf(limit, shares int) int { return max(1, (limit*shares+244)/245) }

// seats are the concurrency of one limit or level: a request takes one
// while it runs. One that finds none free waits, if fewer than queueLimit
// wait already, for at most the wait it is given (APF's queues; the
// waiters are served first come, first served, not fairly by flow); with
// queueLimit 0 it is refused at once (the in-flight limits).
type seats struct {
	free       chan struct{}
	waiting    atomic.Int32
	queueLimit int32
}

func newSeats(n, queueLimit int) *seats {
	return &seats{free: make(chan struct{}, n), queueLimit: int32(queueLimit)}
}

// acquire takes a seat, waiting as described; false: none was had.
func (s *seats) acquire(ctx context.Context, wait time.Duration) bool {
	select {
	case s.free <- struct{}{}:
		return true
	default:
	}
	if s.waiting.Add(1) > s.queueLimit {
		s.waiting.Add(-1)
		return false
	}
	defer s.waiting.Add(-1)
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s.free <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

func (s *seats) release() { <-s.free }

// seatPools are withMaxInFlight's seats: the two limits and the levels'.
type seatPools struct {
	readOnly, mutating *seats
	levels             map[string]*seats
}

func newSeatPools(readOnly, mutating int) *seatPools {
	p := &seatPools{readOnly: newSeats(readOnly, 0), mutating: newSeats(mutating, 0), levels: map[string]*seats{}}
	for name, l := range priorityLevels {
		p.levels[name] = newSeats(seatsOf(readOnly+mutating, l.shares), l.queued)
	}
	return p
}

// of returns the seats r takes: its priority level's, or else the
// read-only or mutating limit's.
func (p *seatPools) of(r *http.Request) *seats {
	a, ok := request.AttributesFrom(r.Context())
	if ok && a.User != nil {
		if level := priorityLevelOf(a); level != "" {
			return p.levels[level]
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return p.mutating
	}
	return p.readOnly
}

// priorityLevelOf returns the priority level APF's default flow schemas
// put a request in, among those kubesim gives seats: the Lease requests of
// the scheduler and controller manager (system-leader-election:
// leader-election); a node's requests on Nodes and Leases, its heartbeats
// (system-node-high: node-high), and its others (system-nodes: system);
// the scheduler's, the controller manager's and kube-system's service
// accounts' (kube-scheduler, kube-controller-manager,
// kube-system-service-accounts: workload-high). "" for any other.
func priorityLevelOf(a auth.Attributes) string {
	u := a.User
	switch {
	case isLeaderElection(a):
		return levelLeaderElection
	case u.InGroup(user.NodesGroup) && isNodeHeartbeat(a):
		return levelNodeHigh
	case u.InGroup(user.NodesGroup):
		return levelSystem
	case u.Name == user.KubeScheduler || u.Name == user.KubeControllerManager:
		return levelWorkloadHigh
	case strings.HasPrefix(u.Name, serviceaccount.ServiceAccountUsernamePrefix+"kube-system"+serviceaccount.ServiceAccountUsernameSeparator):
		return levelWorkloadHigh
	}
	return ""
}

// isNodeHeartbeat says whether a is a request on Nodes, nodes/status or
// Leases: the resources of APF's system-node-high flow schema.
func isNodeHeartbeat(a auth.Attributes) bool {
	if !a.ResourceRequest {
		return false
	}
	nodes := a.Resource == "nodes" && (a.Subresource == "" || a.Subresource == "status")
	return nodes || a.APIGroup == "coordination.k8s.io" && a.Resource == "leases"
}

// leaderElectionUsers are the users of APF's system-leader-election flow
// schema (besides kube-system's service accounts, which kubesim's
// components do not use).
var leaderElectionUsers = []string{user.KubeControllerManager, user.KubeScheduler}

// isLeaderElection says whether a is a get, create or update of a Lease
// by one of leaderElectionUsers: the requests of that flow schema.
func isLeaderElection(a auth.Attributes) bool {
	if a.User == nil || !a.ResourceRequest || a.APIGroup != "coordination.k8s.io" || a.Resource != "leases" || a.Subresource != "" {
		return false
	}
	switch a.Verb {
	case "get", "create", "update":
		return slices.Contains(leaderElectionUsers, a.User.Name)
	}
	return false
}
