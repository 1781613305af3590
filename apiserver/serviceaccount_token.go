package apiserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"fmt"
	"net/http"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// TokenRequest defaults and limits, as upstream's.
const (
	// defaultTokenExpirationSeconds is the v1 default of
	// spec.expirationSeconds: an hour.
	defaultTokenExpirationSeconds = 60 * 60
	// minTokenExpirationSeconds is the shortest validity allowed.
	minTokenExpirationSeconds = 10 * 60
	// maxTokenExpirationSeconds is the longest validity allowed (2^32 s).
	maxTokenExpirationSeconds = 1 << 32
)

var tokenRequestKind = authenticationv1.SchemeGroupVersion.WithKind("TokenRequest")

// tokenSubresource is serviceaccounts/token (kubectl create token).
func tokenSubresource() subresource {
	return subresource{name: "token", kind: tokenRequestKind, verbs: []string{verbCreate},
		newFunc: func() runtime.Object { return &authenticationv1.TokenRequest{} },
		create:  (*handlers).createToken}
}

// setupServiceAccountTokens makes the token issuer from the configured
// signing key (or a key made now, lost when the process ends) and puts the
// service account token authenticator after the configured ones, as
// kube-apiserver orders its authenticators.
func (s *Server) setupServiceAccountTokens() error {
	key := s.cfg.ServiceAccountSigningKey
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return fmt.Errorf("apiserver: service account key: %w", err)
		}
	}
	issuer, err := auth.NewTokenIssuer(key, s.cfg.serviceAccountIssuer())
	if err != nil {
		return err
	}
	s.tokens = issuer
	// The configured authenticator (static tokens, client certificates)
	// knows no audiences: as kube-apiserver wraps its token file
	// authenticator, it answers only a request for the API audiences.
	s.authn = auth.Union(auth.WrapAudienceAgnostic(s.APIAudiences(), s.cfg.Authenticator),
		auth.NewServiceAccountAuthenticator(issuer.Issuer(), s.APIAudiences(), &key.PublicKey, s.serviceAccounts()))
	return nil
}

// Authenticator is what the handler chain authenticates requests with:
// the configured authenticator, service account tokens, then anonymous.
// A TokenReview authenticates its token with it, as kube-apiserver's.
func (s *Server) Authenticator() auth.Authenticator { return auth.WithAnonymous(s.authn) }

// APIAudiences are the audiences the API server accepts and gives tokens
// by default: kube-apiserver's --api-audiences, which defaults to the
// issuer.
func (s *Server) APIAudiences() []string { return []string{s.tokens.Issuer()} }

// serviceAccountGetter reads service accounts from the service account
// cache (fed by the watch cache, as upstream's getter reads an
// informer's lister) and pods with a read of resourceVersion 0, then from
// etcd when the cache has not seen them yet (as upstream's getter falls
// back to a live lookup).
type serviceAccountGetter struct {
	reg      *registry.Registry
	accounts *registry.ServiceAccountCache
}

func getCachedThenLive(ctx context.Context, store *registry.Store, namespace, name string) (runtime.Object, error) {
	obj, err := store.Get(ctx, namespace, name, &metav1.GetOptions{ResourceVersion: "0"})
	if apierrors.IsNotFound(err) {
		obj, err = store.Get(ctx, namespace, name, nil)
	}
	return obj, err
}

func (g serviceAccountGetter) GetServiceAccount(ctx context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	sa, err := g.CachedServiceAccount(ctx, namespace, name)
	if apierrors.IsNotFound(err) {
		sa, err = g.LiveServiceAccount(ctx, namespace, name)
	}
	return sa, err
}

func (g serviceAccountGetter) GetPod(ctx context.Context, namespace, name string) (*corev1.Pod, error) {
	obj, err := getCachedThenLive(ctx, g.reg.Pods, namespace, name)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Pod), nil
}

// createToken answers POST serviceaccounts/<name>/token as upstream's
// TokenREST does: the service account must exist (404 otherwise); the
// request's name, namespace and uid, when given, must be its; audiences
// default to the API server's, expirationSeconds to an hour (at least 10
// minutes, at most 2^32 s); a token may be bound to a Pod running as the
// service account. The token is signed, nothing is stored, and the
// answer (201) carries it with its expiration time.
func (h *handlers) createToken(w http.ResponseWriter, r *http.Request, p Params) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	body, err := readBody(r, h.s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return err
	}
	obj, warnings, err := decodeBody(r, body, tokenRequestKind, &authenticationv1.TokenRequest{}, "")
	if err != nil {
		return err
	}
	traceDecoded(r.Context(), r.Header.Get("Content-Type"), body, obj, warnings, nil)
	req := obj.(*authenticationv1.TokenRequest)
	sa, err := h.s.tokenServiceAccount(r.Context(), req, p)
	if err != nil {
		return err
	}
	now := time.Now()
	req.CreationTimestamp, req.Status = metav1.NewTime(now), authenticationv1.TokenRequestStatus{}
	if err := validateTokenRequest(req); err != nil {
		return err
	}
	tr := auth.TokenRequest{Namespace: sa.Namespace, Name: sa.Name, UID: string(sa.UID),
		Audiences: req.Spec.Audiences, Expiration: time.Duration(*req.Spec.ExpirationSeconds) * time.Second}
	if tr.Pod, tr.Node, err = h.s.tokenBinding(r.Context(), req.Spec.BoundObjectRef, sa); err != nil {
		return err
	}
	token, claims, err := h.s.tokens.Issue(tr, now)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("failed to generate token: %v", err))
	}
	req.Status = authenticationv1.TokenRequestStatus{Token: token, ExpirationTimestamp: metav1.NewTime(time.Unix(claims.Expiry, 0))}
	request.TraceFrom(r.Context()).Step("token issued", "ok",
		fmt.Sprintf("for %q, audiences %v, expires %s, jti %s", claims.Subject, claims.Audience, req.Status.ExpirationTimestamp.UTC().Format(time.RFC3339), claims.ID),
		"subject", claims.Subject, "jti", claims.ID)
	h.s.writeObject(w, r, http.StatusCreated, req, o)
	return nil
}

// tokenServiceAccount finds the service account of a TokenRequest and
// fills the request's name, namespace, uid and audiences as upstream does.
func (s *Server) tokenServiceAccount(ctx context.Context, req *authenticationv1.TokenRequest, p Params) (*corev1.ServiceAccount, error) {
	invalid := func(path *field.Path, value, msg string) error {
		return apierrors.NewInvalid(tokenRequestKind.GroupKind(), p.Name, field.ErrorList{field.Invalid(path, value, msg)})
	}
	if req.Name != "" && req.Name != p.Name {
		return nil, invalid(field.NewPath("metadata", "name"), req.Name, "must match the service account name if specified")
	}
	if req.Namespace != "" && req.Namespace != p.Namespace {
		return nil, invalid(field.NewPath("metadata", "namespace"), req.Namespace, "must match the service account namespace if specified")
	}
	obj, err := s.reg.ServiceAccounts.Get(ctx, p.Namespace, p.Name, nil)
	if err != nil {
		return nil, err
	}
	sa := obj.(*corev1.ServiceAccount)
	if req.UID != "" && req.UID != sa.UID {
		return nil, apierrors.NewConflict(schema.GroupResource{Group: tokenRequestKind.Group, Resource: tokenRequestKind.Kind}, p.Name,
			fmt.Errorf("the UID in the token request (%s) does not match the UID of the service account (%s)", req.UID, sa.UID))
	}
	if len(req.Spec.Audiences) == 0 {
		req.Spec.Audiences = s.APIAudiences()
	}
	req.Name, req.Namespace, req.UID = sa.Name, sa.Namespace, sa.UID
	if req.Spec.ExpirationSeconds == nil {
		seconds := int64(defaultTokenExpirationSeconds)
		req.Spec.ExpirationSeconds = &seconds
	}
	return sa, nil
}

// validateTokenRequest is upstream's ValidateTokenRequest (without the
// webhook attestations kubesim does not serve).
func validateTokenRequest(req *authenticationv1.TokenRequest) error {
	var errs field.ErrorList
	path := field.NewPath("spec", "expirationSeconds")
	switch seconds := *req.Spec.ExpirationSeconds; {
	case seconds < minTokenExpirationSeconds:
		errs = append(errs, field.Invalid(path, seconds, "may not specify a duration less than 10 minutes"))
	case seconds > maxTokenExpirationSeconds:
		errs = append(errs, field.Invalid(path, seconds, "may not specify a duration larger than 2^32 seconds"))
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(tokenRequestKind.GroupKind(), "", errs)
	}
	return nil
}

// tokenBinding resolves spec.boundObjectRef: a Pod running as sa (and its
// node, by name and UID when the Node exists). kube-apiserver can also
// bind a token to a Secret, a Node or a webhook configuration; kubesim
// answers those with a 400 that says so.
func (s *Server) tokenBinding(ctx context.Context, ref *authenticationv1.BoundObjectReference, sa *corev1.ServiceAccount) (pod, node *auth.ObjectRef, err error) {
	if ref == nil {
		return nil, nil, nil
	}
	gvk := schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind)
	if gvk.Group != "" || gvk.Kind != "Pod" {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token to object of type %s (kubesim binds tokens to Pods only)", gvk.String()))
	}
	obj, err := s.reg.Pods.Get(ctx, sa.Namespace, ref.Name, nil)
	if err != nil {
		return nil, nil, err
	}
	p := obj.(*corev1.Pod)
	if p.Spec.ServiceAccountName != sa.Name {
		return nil, nil, apierrors.NewBadRequest(fmt.Sprintf("cannot bind token for serviceaccount %q to pod running with different serviceaccount name.", sa.Name))
	}
	if ref.UID != "" && ref.UID != p.UID {
		return nil, nil, apierrors.NewConflict(schema.GroupResource{Resource: "Pod"}, ref.Name,
			fmt.Errorf("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID))
	}
	pod = &auth.ObjectRef{Name: p.Name, UID: string(p.UID)}
	if p.Spec.NodeName != "" {
		node = &auth.ObjectRef{Name: p.Spec.NodeName}
		n, err := s.reg.Nodes.Get(ctx, "", p.Spec.NodeName, nil)
		switch {
		case err == nil:
			node.UID = string(n.(*corev1.Node).UID)
		case !apierrors.IsNotFound(err):
			return nil, nil, apierrors.NewInternalError(err)
		}
	}
	return pod, node, nil
}
