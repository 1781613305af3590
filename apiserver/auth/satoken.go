package auth

import (
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/uuid"
)

// Service account identities, as kube-apiserver names them.
const (
	// GroupServiceAccounts holds every service account;
	// GroupServiceAccountsPrefix+<namespace> those of one namespace.
	GroupServiceAccounts       = "system:serviceaccounts"
	GroupServiceAccountsPrefix = "system:serviceaccounts:"
	// Extra keys of a pod-bound token's user.
	ExtraPodName  = "authentication.kubernetes.io/pod-name"
	ExtraPodUID   = "authentication.kubernetes.io/pod-uid"
	ExtraNodeName = "authentication.kubernetes.io/node-name"
	ExtraNodeUID  = "authentication.kubernetes.io/node-uid"
)

// ServiceAccountUser returns the identity of a service account:
// system:serviceaccount:<namespace>:<name> in system:serviceaccounts and
// system:serviceaccounts:<namespace>.
func ServiceAccountUser(namespace, name, uid string) User {
	return User{
		Name:   ServiceAccountUsernamePrefix + namespace + ":" + name,
		UID:    uid,
		Groups: []string{GroupServiceAccounts, GroupServiceAccountsPrefix + namespace},
	}
}

// ObjectRef names an object a token is bound to.
type ObjectRef struct {
	Name string `json:"name,omitempty"`
	UID  string `json:"uid,omitempty"`
}

// kubernetesClaims are the private claims under "kubernetes.io", as
// kube-apiserver writes them.
type kubernetesClaims struct {
	Namespace      string     `json:"namespace,omitempty"`
	ServiceAccount ObjectRef  `json:"serviceaccount,omitempty"`
	Pod            *ObjectRef `json:"pod,omitempty"`
	Node           *ObjectRef `json:"node,omitempty"`
}

// TokenClaims is the payload of a service account token: the registered
// claims of RFC 7519 and kube-apiserver's private ones.
type TokenClaims struct {
	Issuer     string           `json:"iss"`
	Subject    string           `json:"sub"`
	Audience   []string         `json:"aud"`
	Expiry     int64            `json:"exp"`
	IssuedAt   int64            `json:"iat"`
	NotBefore  int64            `json:"nbf"`
	ID         string           `json:"jti"`
	Kubernetes kubernetesClaims `json:"kubernetes.io"`
}

// TokenRequest is what a token is issued for.
type TokenRequest struct {
	Namespace, Name, UID string // the service account
	Audiences            []string
	Expiration           time.Duration
	// Pod and Node, if set, bind the token to a pod (and name its node).
	Pod, Node *ObjectRef
}

// TokenIssuer signs service account tokens (JWTs, ES256) with one key, as
// kube-apiserver's --service-account-signing-key-file does. It is safe
// for concurrent use.
type TokenIssuer struct {
	key    *ecdsa.PrivateKey
	keyID  string
	issuer string
}

// NewTokenIssuer returns an issuer signing with key (a P-256 key) in the
// name of issuer (the iss claim). The key id is the unpadded base64url
// SHA-256 of the public key's DER encoding, as kube-apiserver computes it.
func NewTokenIssuer(key *ecdsa.PrivateKey, issuer string) (*TokenIssuer, error) {
	if key == nil || key.Curve.Params().BitSize != 256 {
		return nil, errors.New("auth: a service account signing key must be an ECDSA P-256 key")
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("auth: service account key: %w", err)
	}
	sum := sha256.Sum256(der)
	return &TokenIssuer{key: key, keyID: base64.RawURLEncoding.EncodeToString(sum[:]), issuer: issuer}, nil
}

// Issuer returns the iss claim of the tokens.
func (i *TokenIssuer) Issuer() string { return i.issuer }

// Issue signs a token for req, valid from now for req.Expiration, with a
// fresh jti, and returns it with its claims.
func (i *TokenIssuer) Issue(req TokenRequest, now time.Time) (string, TokenClaims, error) {
	c := TokenClaims{
		Issuer:    i.issuer,
		Subject:   ServiceAccountUsernamePrefix + req.Namespace + ":" + req.Name,
		Audience:  append([]string(nil), req.Audiences...),
		IssuedAt:  now.Unix(),
		NotBefore: now.Unix(),
		Expiry:    now.Add(req.Expiration).Unix(),
		ID:        string(uuid.NewUUID()),
		Kubernetes: kubernetesClaims{
			Namespace:      req.Namespace,
			ServiceAccount: ObjectRef{Name: req.Name, UID: req.UID},
			Pod:            req.Pod,
			Node:           req.Node,
		},
	}
	header, err := json.Marshal(map[string]string{"alg": "ES256", "kid": i.keyID})
	if err != nil {
		return "", c, err
	}
	payload, err := json.Marshal(c)
	if err != nil {
		return "", c, err
	}
	signed := b64(header) + "." + b64(payload)
	sum := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, i.key, sum[:])
	if err != nil {
		return "", c, fmt.Errorf("auth: signing a token: %w", err)
	}
	sig := make([]byte, 64) // JWS ES256: r and s, 32 bytes each
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + b64(sig), c, nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// parseToken splits a compact JWS and decodes its claims without checking
// the signature; ok is false for anything that is not a JWT.
func parseToken(token string) (claims TokenClaims, signed string, sig []byte, ok bool) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return claims, "", nil, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(payload, &claims) != nil {
		return claims, "", nil, false
	}
	if sig, err = base64.RawURLEncoding.DecodeString(parts[2]); err != nil {
		return claims, "", nil, false
	}
	return claims, parts[0] + "." + parts[1], sig, true
}

// verifySignature checks an ES256 signature over signed.
func verifySignature(pub *ecdsa.PublicKey, signed string, sig []byte) bool {
	if len(sig) != 64 {
		return false
	}
	sum := sha256.Sum256([]byte(signed))
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])
	return ecdsa.Verify(pub, sum[:], r, s)
}
