package pki

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Well-known user and group names, as a real cluster uses them.
const (
	AdminUser     = "admin"
	SchedulerUser = "system:kube-scheduler"
	// ControllerManagerUser is kube-controller-manager's user name.
	ControllerManagerUser = "system:kube-controller-manager"
	StudentUser           = "student"
	NodeUserPrefix        = "system:node:"
	MastersGroup          = "system:masters"
	NodesGroup            = "system:nodes"
)

// Identity is who a credential authenticates as: the user name (the client
// certificate's CN, the token file's user column) and the groups (the
// certificate's O values, the token file's group column).
type Identity struct {
	User   string
	Groups []string
}

// Admin is the cluster administrator; system:masters bypasses RBAC.
func Admin() Identity { return Identity{User: AdminUser, Groups: []string{MastersGroup}} }

// Scheduler is the identity kube-scheduler uses; RBAC grants it by user name.
func Scheduler() Identity { return Identity{User: SchedulerUser} }

// ControllerManager is the identity kube-controller-manager uses: RBAC
// grants it by user name (the system:kube-controller-manager
// ClusterRole), which lets it make the controllers' service accounts and
// ask for their tokens; the controllers then act as
// system:serviceaccount:kube-system:<controller>, as with upstream's
// --use-service-account-credentials.
func ControllerManager() Identity { return Identity{User: ControllerManagerUser} }

// Student is a user with no groups: it may do only what RBAC grants to the
// name "student" (and to every authenticated user).
func Student() Identity { return Identity{User: StudentUser} }

// Node is the identity of the kubelet on the named node, the one the node
// authorizer expects: system:node:<name> in group system:nodes.
func Node(name string) Identity {
	return Identity{User: NodeUserPrefix + name, Groups: []string{NodesGroup}}
}

// standardIdentities get a token on every Load.
func standardIdentities() []Identity { return []Identity{Admin(), Scheduler(), Student()} }

// validate reports why id cannot be written into a certificate and the
// token file.
func (id Identity) validate() error {
	switch {
	case id.User == "":
		return errors.New("pki: user name is empty")
	case hasControl(id.User):
		return fmt.Errorf("pki: user name %q has a control character", id.User)
	case id.User == NodeUserPrefix:
		return errors.New("pki: node identity without a node name")
	}
	for _, g := range id.Groups {
		switch {
		case g == "":
			return fmt.Errorf("pki: user %q: empty group name", id.User)
		case strings.Contains(g, ","):
			// The token file keeps groups in one comma-separated column.
			return fmt.Errorf("pki: user %q: group %q contains a comma", id.User, g)
		case hasControl(g):
			return fmt.Errorf("pki: user %q: group %q has a control character", id.User, g)
		}
	}
	return nil
}

func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }

// sameGroups reports whether a and b list the same groups in the same order.
func sameGroups(a, b []string) bool { return slices.Equal(a, b) }

// reservedNames are file base names ClientCert must not take.
var reservedNames = []string{"ca", "apiserver"}

// fileBase returns the base name (without .crt/.key) of user's client
// certificate files: ':' becomes '-', and only letters, digits and
// . _ - @ are allowed otherwise, so no user name can reach outside the
// directory or overwrite the CA or serving files.
func fileBase(user string) (string, error) {
	var b strings.Builder
	for _, r := range user {
		switch {
		case r == ':':
			b.WriteByte('-')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == '-', r == '@':
			b.WriteRune(r)
		default:
			return "", fmt.Errorf("pki: user %q: character %q cannot be part of a file name (allowed: letters, digits, . _ - @ :)", user, r)
		}
	}
	name := b.String()
	if strings.HasPrefix(name, ".") {
		return "", fmt.Errorf("pki: user %q: a file name may not start with '.'", user)
	}
	for _, r := range reservedNames {
		// Compare without case: some file systems do too.
		if strings.EqualFold(name, r) {
			return "", fmt.Errorf("pki: user %q: its files would replace %s.crt and %s.key", user, r, r)
		}
	}
	return name, nil
}
