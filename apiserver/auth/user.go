package auth

import "strings"

// Well-known user and group names, as kube-apiserver uses them.
const (
	// Anonymous is the user name of a request without credentials.
	Anonymous = "system:anonymous"
	// GroupUnauthenticated is the only group of the anonymous user.
	GroupUnauthenticated = "system:unauthenticated"
	// GroupAuthenticated is added to every authenticated user.
	GroupAuthenticated = "system:authenticated"
	// GroupMasters is the superuser group, bound to cluster-admin.
	GroupMasters = "system:masters"
	// GroupMonitoring may read the monitoring endpoints (/metrics) through
	// the default ClusterRoleBinding system:monitoring.
	GroupMonitoring = "system:monitoring"
	// GroupNodes is the group of every kubelet.
	GroupNodes = "system:nodes"
	// NodeUserPrefix starts the user name of a kubelet: system:node:<node>.
	NodeUserPrefix = "system:node:"
	// SchedulerUser is the scheduler's user name.
	SchedulerUser = "system:kube-scheduler"
)

// User is an authenticated (or anonymous) identity. It is a value the
// authenticators build and nobody changes afterwards.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// InGroup reports whether u is a member of group. A nil u is in no group.
func (u *User) InGroup(group string) bool {
	if u == nil {
		return false
	}
	for _, g := range u.Groups {
		if g == group {
			return true
		}
	}
	return false
}

// nodeIdentity reports whether u claims to be a kubelet (user name
// system:node:<name> and member of system:nodes) and the node's name,
// which may be empty for the malformed user "system:node:".
func nodeIdentity(u *User) (name string, isNode bool) {
	if u == nil || !strings.HasPrefix(u.Name, NodeUserPrefix) || !u.InGroup(GroupNodes) {
		return "", false
	}
	return strings.TrimPrefix(u.Name, NodeUserPrefix), true
}

// NodeName returns X for the user "system:node:X" in group system:nodes,
// and false for every other user, including "system:node:" with no name.
func NodeName(u *User) (string, bool) {
	name, ok := nodeIdentity(u)
	if !ok || name == "" {
		return "", false
	}
	return name, true
}
