package auth

import (
	"context"
	"net/http"
	"slices"
)

// audiencesKey is the context key of the audiences a credential is asked
// for.
type audiencesKey struct{}

// WithAudiences returns ctx asking the authenticators for a credential
// meant for one of auds, as upstream's authenticator.WithAudiences: a
// TokenReview's spec.audiences (or the API audiences) travel this way to
// the service account authenticator.
func WithAudiences(ctx context.Context, auds []string) context.Context {
	return context.WithValue(ctx, audiencesKey{}, auds)
}

// AudiencesFrom returns the audiences WithAudiences put in ctx, and
// whether there were any.
func AudiencesFrom(ctx context.Context) ([]string, bool) {
	auds, ok := ctx.Value(audiencesKey{}).([]string)
	return auds, ok
}

// intersectAudiences returns the audiences of b that are in a, in b's
// order, as upstream's a.Intersect(b).
func intersectAudiences(a, b []string) []string {
	var out []string
	for _, aud := range b {
		if slices.Contains(a, aud) {
			out = append(out, aud)
		}
	}
	return out
}

// WrapAudienceAgnostic restricts an authenticator that knows nothing of
// audiences (static tokens) to the implicit ones, the API server's, as
// kube-apiserver wraps its token file and loopback token authenticators
// (authenticator.WrapAudienceAgnosticToken): when the request asks for
// audiences and none of them is implicit, a accepts no bearer token
// ("invalid bearer token", what kube-apiserver's loopback bearer token
// authenticator, first of its authenticators, then says of any token);
// a success is for the audiences in common. Without audiences in the
// request, a answers alone.
func WrapAudienceAgnostic(implicit []string, a Authenticator) Authenticator {
	if a == nil {
		return nil
	}
	return AuthenticatorFunc(func(r *http.Request) (*AuthResult, bool, error) {
		target, ok := AudiencesFrom(r.Context())
		if !ok {
			return a.AuthenticateRequest(r)
		}
		auds := intersectAudiences(implicit, target)
		if len(auds) == 0 {
			if _, ok := bearerToken(r); ok {
				return nil, false, errInvalidBearerToken
			}
			return nil, false, nil
		}
		res, ok, err := a.AuthenticateRequest(r)
		if err != nil || !ok {
			return nil, false, err
		}
		res.Audiences = auds
		return res, true, nil
	})
}
