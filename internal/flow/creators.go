package flow

import (
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/types"
)

// controllerAccounts is the prefix of the users the controllers act as:
// kube-system's service accounts, one per controller (as
// kube-controller-manager with --use-service-account-credentials).
const controllerAccounts = "system:serviceaccount:kube-system:"

// CreatedByController reports whether e is a pod's stage 1 whose create
// a controller sent (the request's user is a kube-system service
// account). The event that tells who created the pod and why (CreatorOf)
// comes later, from the controller, which learns the pod's name only
// when its POST returns.
func CreatedByController(e Event) bool {
	return e.Stage == StageAdmitted && e.Request != nil && strings.HasPrefix(e.Request.User, controllerAccounts)
}

// maxCreators bounds a Creators: past it, the creator filed longest ago
// is forgotten.
const maxCreators = 256

// Creators is the creator index: it keeps the events that tell who
// created a pod (CreatorOf), by the pod's UID, until a reader that came
// upon one before the pod's own events takes it to show with them. It
// keeps at most maxCreators (256): filing one more forgets the one filed
// longest ago.
//
// The zero value is empty and ready to use. Not safe for concurrent use:
// its reader guards it.
type Creators struct {
	byUID map[types.UID]Event
	order []types.UID // of byUID's keys, filed longest ago first
}

// File keeps e if it tells who created a pod with a UID, and reports
// whether it did; any other event it leaves alone. A pod's creator
// filed again replaces the one kept and counts as filed last.
func (c *Creators) File(e Event) bool {
	if CreatorOf(e) == nil || e.Object.Kind != "Pod" || e.Object.UID == "" {
		return false
	}
	uid := e.Object.UID
	if c.byUID == nil {
		c.byUID = map[types.UID]Event{}
	}
	if _, ok := c.byUID[uid]; ok {
		c.drop(uid)
	}
	c.byUID[uid] = e
	c.order = append(c.order, uid)
	for len(c.order) > maxCreators {
		delete(c.byUID, c.order[0])
		c.order = c.order[1:]
	}
	return true
}

// Take returns the creator kept for the pod of uid, and forgets it; false
// when none is kept (never filed, taken already, or forgotten for newer
// ones).
func (c *Creators) Take(uid types.UID) (Event, bool) {
	e, ok := c.byUID[uid]
	if ok {
		c.drop(uid)
	}
	return e, ok
}

// drop forgets the creator kept for uid.
func (c *Creators) drop(uid types.UID) {
	delete(c.byUID, uid)
	for i, u := range c.order {
		if u == uid {
			c.order = slices.Delete(c.order, i, i+1)
			return
		}
	}
}
