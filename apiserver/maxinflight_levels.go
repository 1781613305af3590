package apiserver

import (
	"net/http"
	"slices"
	"strings"

	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubesim/kubesim/apiserver/auth"
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

// priorityLevelShares are those levels' nominal concurrency shares, of
// the 245 all of APF's default levels hold.
var priorityLevelShares = map[string]int{
	levelLeaderElection: 10, levelNodeHigh: 40, levelSystem: 30, levelWorkloadHigh: 40,
}

// seatsOf is a level's share of limit seats (the server's two limits
// together, as APF's server concurrency limit), at least one.
func seatsOf(limit, shares int) int { return max(1, (limit*shares+244)/245) }

// seatPools are withMaxInFlight's seats: the two limits and the levels'.
type seatPools struct {
	readOnly, mutating chan struct{}
	levels             map[string]chan struct{}
}

func newSeatPools(readOnly, mutating int) *seatPools {
	p := &seatPools{readOnly: make(chan struct{}, readOnly), mutating: make(chan struct{}, mutating),
		levels: map[string]chan struct{}{}}
	for level, shares := range priorityLevelShares {
		p.levels[level] = make(chan struct{}, seatsOf(readOnly+mutating, shares))
	}
	return p
}

// of returns the seats r takes: its priority level's, or else the
// read-only or mutating limit's.
func (p *seatPools) of(r *http.Request) chan struct{} {
	a, ok := requestAttributes(r.Context())
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
