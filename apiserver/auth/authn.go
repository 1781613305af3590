package auth

import (
	"crypto/sha256"
	"crypto/subtle"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"

	asn1util "k8s.io/apimachinery/pkg/apis/asn1"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
)

// Method names how a request was authenticated.
type Method string

// Authentication methods.
const (
	MethodToken     Method = "token"
	MethodX509      Method = "x509"
	MethodAnonymous Method = "anonymous"
)

// CredentialIDKey is the User.Extra key under which the client-certificate
// authenticator records the certificate's fingerprint ("X509SHA256=<hex>"),
// as kube-apiserver does.
const CredentialIDKey = "authentication.kubernetes.io/credential-id"

// AuthResult is a successful authentication: who, and by which method.
type AuthResult struct {
	User   *User
	Method Method
	// Audiences are those of the credential that the request asked for
	// (AudiencesFrom), as upstream's authenticator.Response has them;
	// empty when the request asked for none.
	Audiences []string
}

// Authenticator finds the caller of a request. It returns ok=false and a
// nil error when the request carries no credentials of its kind, and an
// error when it carries credentials that are not valid (the caller answers
// 401). Implementations must be safe for concurrent use.
type Authenticator interface {
	AuthenticateRequest(r *http.Request) (res *AuthResult, ok bool, err error)
}

// AuthenticatorFunc adapts a function to Authenticator.
type AuthenticatorFunc func(r *http.Request) (*AuthResult, bool, error)

// AuthenticateRequest calls f(r).
func (f AuthenticatorFunc) AuthenticateRequest(r *http.Request) (*AuthResult, bool, error) {
	return f(r)
}

// errInvalidBearerToken is kube-apiserver's error for a bearer token that
// no token authenticator recognises.
var errInvalidBearerToken = errors.New("invalid bearer token")

// TokenEntry is one static bearer token and the user it stands for.
type TokenEntry struct {
	Token string
	User  User
}

type tokenAuthenticator struct {
	digests [][sha256.Size]byte // digests[i] is the SHA-256 of users[i]'s token
	users   []User
}

// NewTokenAuthenticator returns an Authenticator for static bearer tokens
// ("Authorization: Bearer <token>"). A request without such a header (or
// with an empty token) is not its business (ok=false); a token that matches
// no entry is an error ("invalid bearer token"). The presented token is
// compared with every entry in constant time (crypto/subtle on SHA-256
// digests, so neither the position of the match nor the tokens' lengths
// show in the timing); the first matching entry wins. The user gets the
// group system:authenticated added. On success the Authorization header is
// removed from the request, as kube-apiserver does, so that nothing
// further in the server can reuse the secret. Entries with an empty token
// are ignored; entries is copied.
func NewTokenAuthenticator(entries []TokenEntry) Authenticator {
	a := &tokenAuthenticator{}
	for _, e := range entries {
		if e.Token == "" {
			continue
		}
		a.digests = append(a.digests, sha256.Sum256([]byte(e.Token)))
		a.users = append(a.users, copyUser(e.User))
	}
	return a
}

func (a *tokenAuthenticator) AuthenticateRequest(r *http.Request) (*AuthResult, bool, error) {
	token, ok := bearerToken(r)
	if !ok {
		return nil, false, nil
	}
	presented := sha256.Sum256([]byte(token))
	match := -1
	for i := range a.digests {
		// Every entry is compared, whether or not one matched already.
		if subtle.ConstantTimeCompare(presented[:], a.digests[i][:]) == 1 && match < 0 {
			match = i
		}
	}
	if match < 0 {
		return nil, false, errInvalidBearerToken
	}
	r.Header.Del("Authorization")
	u := withAuthenticatedGroup(copyUser(a.users[match]))
	return &AuthResult{User: &u, Method: MethodToken}, true, nil
}

// bearerToken returns the token of an "Authorization: Bearer <token>"
// header. The scheme is case-insensitive; a missing or empty token, or
// another scheme, is no bearer token.
func bearerToken(r *http.Request) (string, bool) {
	h := strings.TrimSpace(r.Header.Get("Authorization"))
	if h == "" {
		return "", false
	}
	parts := strings.SplitN(h, " ", 3)
	if len(parts) < 2 || !strings.EqualFold(parts[0], "bearer") || parts[1] == "" {
		return "", false
	}
	return parts[1], true
}

type certAuthenticator struct{}

// NewCertAuthenticator returns an Authenticator for TLS client
// certificates. It trusts the TLS layer to have verified the chain against
// the client CA (tls.Config.ClientCAs with ClientAuth VerifyClientCertIfGiven
// or stricter) and reads r.TLS.VerifiedChains: the leaf's Subject CommonName
// is the user name, its Organizations are the groups, a UID attribute
// (OID 1.3.6.1.4.1.57683.2) becomes the UID, and the certificate's SHA-256
// fingerprint is recorded under CredentialIDKey; system:authenticated is
// added. A plain-HTTP request or one without a client certificate is not
// its business (ok=false), nor is a verified certificate without a
// CommonName; a certificate the TLS layer did not verify is an error.
func NewCertAuthenticator() Authenticator { return certAuthenticator{} }

func (certAuthenticator) AuthenticateRequest(r *http.Request) (*AuthResult, bool, error) {
	if r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil, false, nil
	}
	if len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
		return nil, false, fmt.Errorf("verifying certificate %s failed: x509: the client certificate was not verified against the client CA", certID(r.TLS.PeerCertificates[0]))
	}
	var errs []error
	for _, chain := range r.TLS.VerifiedChains {
		if len(chain) == 0 {
			continue
		}
		u, ok, err := certUser(chain[0])
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if ok {
			u = withAuthenticatedGroup(u)
			return &AuthResult{User: &u, Method: MethodX509}, true, nil
		}
	}
	return nil, false, utilerrors.NewAggregate(errs)
}

// certUser maps a verified leaf certificate to its user.
func certUser(c *x509.Certificate) (User, bool, error) {
	if c.Subject.CommonName == "" {
		return User{}, false, nil
	}
	uid, err := certUID(c)
	if err != nil {
		return User{}, false, err
	}
	sum := sha256.Sum256(c.Raw)
	return User{
		Name:   c.Subject.CommonName,
		UID:    uid,
		Groups: append([]string(nil), c.Subject.Organization...),
		Extra:  map[string][]string{CredentialIDKey: {"X509SHA256=" + hex.EncodeToString(sum[:])}},
	}, true, nil
}

// certUID returns the single UID attribute of the subject, if any.
func certUID(c *x509.Certificate) (string, error) {
	oid := asn1util.X509UID()
	var uids []string
	for _, n := range c.Subject.Names {
		if !n.Type.Equal(oid) {
			continue
		}
		s, ok := n.Value.(string)
		if !ok {
			return "", errors.New("unable to parse UID into a string")
		}
		uids = append(uids, s)
	}
	switch {
	case len(uids) == 0:
		return "", nil
	case len(uids) > 1:
		return "", fmt.Errorf("expected 1 UID, but found multiple: %v", uids)
	case uids[0] == "":
		return "", errors.New("UID cannot be an empty string")
	}
	return uids[0], nil
}

// certID names a certificate in error messages.
func certID(c *x509.Certificate) string {
	return fmt.Sprintf("%q (serial %s)", c.Subject.CommonName, c.SerialNumber)
}

// Union returns an Authenticator that asks each of authenticators in turn
// and returns the first success. Like kube-apiserver's request
// authenticator, an error from one (a bad token) does not stop the others
// (a valid client certificate still authenticates); if none succeeds, the
// errors seen are returned together, and with none, ok=false. Nil entries
// are skipped.
func Union(authenticators ...Authenticator) Authenticator {
	list := make([]Authenticator, 0, len(authenticators))
	for _, a := range authenticators {
		if a != nil {
			list = append(list, a)
		}
	}
	return AuthenticatorFunc(func(r *http.Request) (*AuthResult, bool, error) {
		var errs []error
		for _, a := range list {
			res, ok, err := a.AuthenticateRequest(r)
			if ok && err == nil && res != nil && res.User != nil {
				return res, true, nil
			}
			if err != nil {
				errs = append(errs, err)
			}
		}
		return nil, false, utilerrors.NewAggregate(errs)
	})
}

// AnonymousUser returns the identity of a request without credentials:
// system:anonymous in group system:unauthenticated.
func AnonymousUser() *User {
	return &User{Name: Anonymous, Groups: []string{GroupUnauthenticated}}
}

// WithAnonymous wraps authn (which may be nil) the way kube-apiserver puts
// its anonymous authenticator after the others (--anonymous-auth, on by
// default): a request that authn authenticates, or rejects with an error
// (a bad token), is answered by authn alone; any request without
// credentials is system:anonymous, and authorization decides: the default
// RBAC lets it read /healthz, /livez, /readyz and /version, and anything
// else is 403, not 401.
func WithAnonymous(authn Authenticator) Authenticator {
	return AuthenticatorFunc(func(r *http.Request) (*AuthResult, bool, error) {
		if authn != nil {
			res, ok, err := authn.AuthenticateRequest(r)
			if err != nil || ok {
				return res, ok, err
			}
		}
		// Anonymous is for whatever audiences were asked, as upstream's.
		auds, _ := AudiencesFrom(r.Context())
		return &AuthResult{User: AnonymousUser(), Method: MethodAnonymous, Audiences: auds}, true, nil
	})
}

// withAuthenticatedGroup adds system:authenticated to u's groups unless u
// is anonymous or already has system:authenticated or
// system:unauthenticated.
func withAuthenticatedGroup(u User) User {
	if u.Name == Anonymous || u.InGroup(GroupAuthenticated) || u.InGroup(GroupUnauthenticated) {
		return u
	}
	groups := make([]string, 0, len(u.Groups)+1)
	u.Groups = append(append(groups, u.Groups...), GroupAuthenticated)
	return u
}

// copyUser returns a deep copy of u, so that a caller changing its result
// cannot change the authenticator's table.
func copyUser(u User) User {
	out := User{Name: u.Name, UID: u.UID, Groups: append([]string(nil), u.Groups...)}
	if u.Extra != nil {
		out.Extra = make(map[string][]string, len(u.Extra))
		for k, v := range u.Extra {
			out.Extra[k] = append([]string(nil), v...)
		}
	}
	return out
}
