package metricsserver

import (
	"context"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// user is who a request is for, from the requestheader headers.
type user struct {
	Name   string
	Groups []string
	Extra  map[string][]string
}

type userKey struct{}

// withRequestHeaderAuthentication admits a request that comes from the
// front proxy: a client certificate verified against the RequestHeaderCA
// (the TLS handshake did that) whose CN is allowed, and an X-Remote-User.
// The user is then taken from X-Remote-User, X-Remote-Group and
// X-Remote-Extra-<key>, as metrics-server's requestheader authenticator
// does; anything else is 401 Unauthorized.
func withRequestHeaderAuthentication(h http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, ok := requestHeaderUser(r, allowed)
		if !ok {
			writeStatus(w, apierrors.NewUnauthorized("Unauthorized"))
			return
		}
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, u)))
	})
}

// requestHeaderUser returns the user the front proxy names, if r comes
// from an allowed front proxy.
func requestHeaderUser(r *http.Request, allowed []string) (user, bool) {
	if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return user{}, false
	}
	cn := r.TLS.VerifiedChains[0][0].Subject.CommonName
	if len(allowed) > 0 && !slices.Contains(allowed, cn) {
		return user{}, false
	}
	name := r.Header.Get("X-Remote-User")
	if name == "" {
		return user{}, false
	}
	u := user{Name: name, Groups: r.Header.Values("X-Remote-Group")}
	for k, v := range r.Header {
		if key, ok := strings.CutPrefix(k, "X-Remote-Extra-"); ok {
			if u.Extra == nil {
				u.Extra = map[string][]string{}
			}
			u.Extra[strings.ToLower(key)] = v
		}
	}
	return u, true
}
