package filters

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apiserver/pkg/authentication/serviceaccount"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// impersonation is what a request's Impersonate-* headers ask for
// (kubectl --as, --as-group, --as-uid, and the extras client-go sends).
type impersonation struct {
	user   string
	uid    string
	groups []string
	extra  map[string][]string
}

// impersonationFrom reads the impersonation headers of h; nil when there
// are none. A uid, groups or extras without a user name are refused with
// kube-apiserver's 400 and message, which shows what was asked for
// (user.DefaultInfo as Go prints it).
func impersonationFrom(h http.Header) (*impersonation, error) {
	w := &impersonation{
		user:   h.Get(authenticationv1.ImpersonateUserHeader),
		uid:    h.Get(authenticationv1.ImpersonateUIDHeader),
		groups: h.Values(authenticationv1.ImpersonateGroupHeader),
	}
	for name, values := range h {
		if !strings.HasPrefix(name, authenticationv1.ImpersonateUserExtraHeaderPrefix) || len(values) == 0 {
			continue
		}
		key := strings.ToLower(name[len(authenticationv1.ImpersonateUserExtraHeaderPrefix):])
		if k, err := url.PathUnescape(key); err == nil {
			key = k
		}
		if w.extra == nil {
			w.extra = map[string][]string{}
		}
		w.extra[key] = append(w.extra[key], values...)
	}
	switch {
	case w.user != "":
		return w, nil
	case w.uid != "" || len(w.groups) > 0 || len(w.extra) > 0:
		asked := &user.DefaultInfo{UID: w.uid, Groups: w.groups, Extra: w.extra}
		return nil, apierrors.NewBadRequest(fmt.Sprintf("requested %#v without impersonating a user name", asked))
	}
	return nil, nil
}

// checks are the "impersonate" permissions the caller needs, in
// kube-apiserver's order: the user (or the service account it names), each
// group, each extra value (resource userextras/<key>), the uid.
func (w *impersonation) checks(caller *auth.User) []auth.Attributes {
	imp := func(group, resource, namespace, name string) auth.Attributes {
		return auth.Attributes{User: caller, Verb: "impersonate", ResourceRequest: true, APIGroup: group, Resource: resource, Namespace: namespace, Name: name}
	}
	checks := []auth.Attributes{imp("", "users", "", w.user)}
	if ns, name, ok := serviceAccountOf(w.user); ok {
		checks[0] = imp("", "serviceaccounts", ns, name)
	}
	for _, g := range w.groups {
		checks = append(checks, imp("", "groups", "", g))
	}
	keys := make([]string, 0, len(w.extra))
	for k := range w.extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range w.extra[k] {
			c := imp(authenticationv1.GroupName, "userextras", "", v)
			c.Subresource = k
			checks = append(checks, c)
		}
	}
	if w.uid != "" {
		checks = append(checks, imp(authenticationv1.GroupName, "uids", "", w.uid))
	}
	return checks
}

// serviceAccountOf splits system:serviceaccount:<namespace>:<name>, as
// kube-apiserver's impersonation does (serviceaccount.SplitUsername: a
// name that is not a valid namespace and service account name is a user).
func serviceAccountOf(name string) (namespace, sa string, ok bool) {
	namespace, sa, err := serviceaccount.SplitUsername(name)
	return namespace, sa, err == nil
}

// impersonated is the user the request acts as once every check passed:
// the groups asked for (a service account's own when none were), plus
// system:authenticated (system:unauthenticated for system:anonymous)
// unless one of the two was asked for; the uid and extras asked for.
func (w *impersonation) impersonated() *auth.User {
	groups := slices.Clone(w.groups)
	if ns, name, ok := serviceAccountOf(w.user); ok && len(groups) == 0 {
		// A service account's groups are known: upstream adds them, unchecked.
		groups = auth.ServiceAccountUser(ns, name, "").Groups
	}
	u := &auth.User{Name: w.user, UID: w.uid, Groups: groups, Extra: w.extra}
	switch {
	case w.user == auth.Anonymous && !u.InGroup(auth.GroupUnauthenticated):
		u.Groups = append(u.Groups, auth.GroupUnauthenticated)
	case w.user != auth.Anonymous && !u.InGroup(auth.GroupAuthenticated) && !u.InGroup(auth.GroupUnauthenticated):
		u.Groups = append(u.Groups, auth.GroupAuthenticated)
	}
	return u
}

// withImpersonation lets a caller act as another user (kubectl --as) if it
// may "impersonate" that user, those groups, extras and uid, as
// kube-apiserver's legacy impersonation does.
func withImpersonation(h http.Handler, c *Config) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked, err := impersonationFrom(r.Header)
		if err != nil {
			c.WriteError(w, r, err)
			return
		}
		if asked == nil {
			h.ServeHTTP(w, r)
			return
		}
		a, _ := request.AttributesFrom(r.Context())
		for _, check := range asked.checks(a.User) {
			res, err := c.Authorizer.Authorize(r.Context(), check)
			if err != nil || res.Decision != auth.DecisionAllow {
				request.TraceFrom(r.Context()).Step("impersonated", "denied", auth.ForbiddenMessage(check))
				c.WriteError(w, r, auth.Forbidden(check, res.Reason))
				return
			}
		}
		u := asked.impersonated()
		request.TraceFrom(r.Context()).Step("impersonated", "ok", fmt.Sprintf("%q acts as %q, groups %v", a.User.Name, u.Name, u.Groups),
			"impersonator", a.User.Name, "user", u.Name)
		request.TraceFrom(r.Context()).SetUser(u.Name, u.Groups)
		if ac := request.AuditFrom(r.Context()); ac != nil {
			ac.Impersonated = u
		}
		a.User = u
		h.ServeHTTP(w, r.WithContext(request.WithAttributes(r.Context(), a)))
	})
}
