// Package request holds what the filters and handlers of a request know
// about it, in its context, as k8s.io/apiserver's endpoints/request does:
// its attributes (verb, resource, user), its trace, its audit context and
// the timer of its timeout.
package request

import (
	"context"

	"github.com/kubesim/kubesim/apiserver/auth"
)

type attrsKey struct{}

// WithAttributes returns ctx carrying a: the request info filter resolves
// them, authentication fills in the user. A request a server of the chain
// makes in the process (the aggregator's discovery fetches), which passes
// no filter, gets them here too.
func WithAttributes(ctx context.Context, a auth.Attributes) context.Context {
	return context.WithValue(ctx, attrsKey{}, &a)
}

// AttributesFrom returns what WithAttributes put in ctx.
func AttributesFrom(ctx context.Context) (auth.Attributes, bool) {
	a, ok := ctx.Value(attrsKey{}).(*auth.Attributes)
	if !ok {
		return auth.Attributes{}, false
	}
	return *a, true
}
