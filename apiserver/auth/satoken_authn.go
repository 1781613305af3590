package auth

import (
	"context"
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ServiceAccountGetter finds the objects a service account token names,
// so that a token outlives neither its service account nor its pod.
// Implementations must be safe for concurrent use.
type ServiceAccountGetter interface {
	GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error)
	GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error)
}

// errBadSignature is what kube-apiserver's JWT library (go-jose v2) says
// of a signature that does not verify with the key, whatever the reason
// (another key, another algorithm): a TokenReview's status.error shows it.
var errBadSignature = errors.New("go-jose/go-jose: error in cryptographic primitive")

// tokenLeeway is go-jose's jwt.DefaultLeeway, which kube-apiserver's
// validator allows on exp, nbf and iat, and on deletion times.
const tokenLeeway = time.Minute

type serviceAccountAuthenticator struct {
	issuer    string
	audiences []string
	key       *ecdsa.PublicKey
	getter    ServiceAccountGetter
	now       func() time.Time
}

// NewServiceAccountAuthenticator returns kube-apiserver's service account
// token authenticator for tokens of issuer signed by key. A bearer token
// that is not a JWT, or whose iss is another issuer, is not its business
// (ok=false). Otherwise, in upstream's order, the token must carry a valid
// ES256 signature, name one of the audiences the request asks for
// (AudiencesFrom; audiences, the API audiences, when it asks for none; a
// token without audiences is for those), be within its validity (a
// minute's leeway, as upstream), and its service account (and pod, when
// bound to one) must still exist with the UID the token names; then the
// caller is
// ServiceAccountUser with system:authenticated, the token's jti as
// credential id ("JTI=<jti>"), and the pod's and node's names and UIDs in
// Extra for a pod-bound token, and the audiences in common. On success the
// Authorization header is removed from the request.
func NewServiceAccountAuthenticator(issuer string, audiences []string, key *ecdsa.PublicKey, getter ServiceAccountGetter) Authenticator {
	return &serviceAccountAuthenticator{issuer: issuer, audiences: audiences, key: key, getter: getter, now: time.Now}
}

func (a *serviceAccountAuthenticator) AuthenticateRequest(r *http.Request) (*AuthResult, bool, error) {
	token, ok := bearerToken(r)
	if !ok {
		return nil, false, nil
	}
	claims, signed, sig, ok := parseToken(token)
	if !ok || claims.Issuer != a.issuer {
		return nil, false, nil
	}
	res, err := a.authenticate(r, claims, signed, sig)
	if err != nil {
		return nil, false, err
	}
	r.Header.Del("Authorization")
	return res, true, nil
}

// authenticate checks a token of the issuer in upstream's order
// (jwtTokenAuthenticator.AuthenticateToken, then its validator):
// signature, audiences, validity times, the objects it names.
func (a *serviceAccountAuthenticator) authenticate(r *http.Request, claims TokenClaims, signed string, sig []byte) (*AuthResult, error) {
	if !es256Header(signed) || !verifySignature(a.key, signed, sig) {
		return nil, errBadSignature
	}
	auds, err := a.audiencesOf(r, claims)
	if err != nil {
		return nil, err
	}
	if err := a.checkTimes(claims); err != nil {
		return nil, err
	}
	u, err := a.user(r.Context(), claims)
	if err != nil {
		return nil, err
	}
	u = withAuthenticatedGroup(u)
	return &AuthResult{User: &u, Method: MethodToken, Audiences: auds}, nil
}

// audiencesOf returns the token's audiences that the request asks for
// (AudiencesFrom; the API audiences when it asks for none), and upstream's
// error when there are none. A token without audiences is for the API
// audiences.
func (a *serviceAccountAuthenticator) audiencesOf(r *http.Request, c TokenClaims) ([]string, error) {
	tokenAuds := c.Audience
	if len(tokenAuds) == 0 {
		tokenAuds = a.audiences
	}
	requested, ok := AudiencesFrom(r.Context())
	if !ok {
		requested = a.audiences
	}
	auds := intersectAudiences(tokenAuds, requested)
	if len(auds) == 0 && len(a.audiences) != 0 {
		return nil, fmt.Errorf("token audiences %q is invalid for the target audiences %q", tokenAuds, requested)
	}
	return auds, nil
}

// es256Header reports whether the JWS header says alg ES256.
func es256Header(signed string) bool {
	h, _, _ := strings.Cut(signed, ".")
	raw, err := base64.RawURLEncoding.DecodeString(h)
	var header struct {
		Alg string `json:"alg"`
	}
	return err == nil && json.Unmarshal(raw, &header) == nil && header.Alg == "ES256"
}

// checkTimes gives kube-apiserver's messages for a token used outside its
// validity.
func (a *serviceAccountAuthenticator) checkTimes(c TokenClaims) error {
	now := a.now()
	switch {
	case c.Expiry != 0 && now.Add(-tokenLeeway).After(time.Unix(c.Expiry, 0)):
		return errors.New("service account token has expired")
	case c.NotBefore != 0 && now.Add(tokenLeeway).Before(time.Unix(c.NotBefore, 0)):
		return errors.New("service account token is not valid yet")
	case c.IssuedAt != 0 && now.Add(tokenLeeway).Before(time.Unix(c.IssuedAt, 0)):
		return errors.New("service account token is issued in the future")
	}
	return nil
}

// user checks that the objects the token names still exist, as upstream's
// validator does, and returns the service account's user.
func (a *serviceAccountAuthenticator) user(ctx context.Context, c TokenClaims) (User, error) {
	k := c.Kubernetes
	sa, err := a.getter.GetServiceAccount(ctx, k.Namespace, k.ServiceAccount.Name)
	if err != nil {
		return User{}, err
	}
	if string(sa.UID) != k.ServiceAccount.UID {
		return User{}, fmt.Errorf("service account UID (%s) does not match claim (%s)", sa.UID, k.ServiceAccount.UID)
	}
	if a.deleted(sa.DeletionTimestamp) {
		return User{}, fmt.Errorf("service account %s/%s has been deleted", k.Namespace, k.ServiceAccount.Name)
	}
	u := ServiceAccountUser(k.Namespace, sa.Name, string(sa.UID))
	u.Extra = map[string][]string{}
	if c.ID != "" {
		u.Extra[CredentialIDKey] = []string{"JTI=" + c.ID}
	}
	if k.Pod != nil {
		pod, err := a.getter.GetPod(ctx, k.Namespace, k.Pod.Name)
		if err != nil || a.deleted(pod.DeletionTimestamp) {
			return User{}, errors.New("service account token has been invalidated")
		}
		if string(pod.UID) != k.Pod.UID {
			return User{}, fmt.Errorf("pod UID (%s) does not match service account pod ref claim (%s)", pod.UID, k.Pod.UID)
		}
		u.Extra[ExtraPodName], u.Extra[ExtraPodUID] = []string{k.Pod.Name}, []string{k.Pod.UID}
		if k.Node != nil {
			u.Extra[ExtraNodeName] = []string{k.Node.Name}
			if k.Node.UID != "" {
				u.Extra[ExtraNodeUID] = []string{k.Node.UID}
			}
		}
	}
	if len(u.Extra) == 0 {
		u.Extra = nil
	}
	return u, nil
}

// deleted reports whether an object's deletion started more than the
// leeway ago.
func (a *serviceAccountAuthenticator) deleted(ts *metav1.Time) bool {
	return ts != nil && ts.Time.Before(a.now().Add(-tokenLeeway))
}
