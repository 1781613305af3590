package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/oauth2"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"

	"github.com/kubesim/kubesim/internal/useragent"
)

// The service accounts the controllers act as, in ControllerNamespace,
// named as upstream's kube-controller-manager names them.
const (
	ReplicaSetControllerName = "replicaset-controller"
	DeploymentControllerName = "deployment-controller"
	GarbageCollectorName     = "generic-garbage-collector"
)

const (
	// ControllerNamespace holds the controllers' service accounts
	// (upstream's metav1.NamespaceSystem).
	ControllerNamespace = "kube-system"
	// DefaultTokenExpiration is what each controller's TokenRequest asks
	// for: an hour, as upstream's dynamic client builder.
	DefaultTokenExpiration = time.Hour
	// tokenLeewayPercent is how much of a token's lifetime is left when
	// the next request gets a new one (upstream's defaultLeewayPercent).
	tokenLeewayPercent = 20
	// minTokenLifetime is the lifetime assumed when the token seems to
	// expire sooner (a skewed clock), as upstream pins it.
	minTokenLifetime = 10 * time.Minute
	// tokenRequestTimeout bounds one API call of the token source, which
	// client-go calls without a context.
	tokenRequestTimeout = 30 * time.Second
)

// clientConfigs gives each controller the client configuration it
// reaches the API server with, by its name (upstream's
// ControllerClientBuilder).
type clientConfigs interface {
	config(name string) *rest.Config
}

// managerCredentials gives every controller the manager's own
// credentials (upstream's SimpleControllerClientBuilder, used without
// --use-service-account-credentials and for the shared informers).
type managerCredentials struct{ rc *rest.Config }

func (m managerCredentials) config(name string) *rest.Config {
	return useragent.Add(rest.CopyConfig(m.rc), name)
}

// serviceAccountCredentials gives each controller a client that
// authenticates with a token of the service account
// ControllerNamespace/<name>, asked for through the TokenRequest API by
// the manager's own client and asked for again once 80% of its lifetime
// has passed, or when the API server answers 401 (upstream's
// DynamicControllerClientBuilder, --use-service-account-credentials=true,
// which kubeadm sets).
type serviceAccountCredentials struct {
	base       *rest.Config // the manager's, without its client certificate
	core       corev1client.CoreV1Interface
	expiration time.Duration

	mu    sync.Mutex
	wraps map[string]transport.WrapperFunc // one token cache per account
}

func newServiceAccountCredentials(rc *rest.Config, core corev1client.CoreV1Interface) *serviceAccountCredentials {
	return &serviceAccountCredentials{base: rest.AnonymousClientConfig(rc), core: core,
		expiration: DefaultTokenExpiration, wraps: map[string]transport.WrapperFunc{}}
}

func (s *serviceAccountCredentials) config(name string) *rest.Config {
	c := rest.CopyConfig(s.base)
	useragent.Add(c, serviceAccountUser(name))
	s.mu.Lock()
	defer s.mu.Unlock()
	wrap, ok := s.wraps[name]
	if !ok {
		tokens := transport.NewCachedTokenSource(&tokenRequester{core: s.core, name: name, expiration: s.expiration})
		wrap = transport.ResettableTokenSourceWrapTransport(tokens)
		s.wraps[name] = wrap
	}
	c.Wrap(wrap)
	return c
}

// serviceAccountUser is the user a token of the controller's service
// account authenticates as.
func serviceAccountUser(name string) string {
	return "system:serviceaccount:" + ControllerNamespace + ":" + name
}

// tokenBackoff is how upstream retries a TokenRequest: four tries, half
// a second, one, two seconds apart.
func tokenBackoff() wait.Backoff {
	return wait.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Steps: 4}
}

// tokenRequester is an oauth2.TokenSource that asks the API server for a
// token of one service account.
type tokenRequester struct {
	core       corev1client.CoreV1Interface
	name       string
	expiration time.Duration
}

// Token makes sure the service account exists and asks for a token
// (tokenBackoff); the token counts as expired once 80% of its lifetime
// has passed.
func (r *tokenRequester) Token() (*oauth2.Token, error) {
	var tr *authenticationv1.TokenRequest
	var last error
	err := wait.ExponentialBackoff(tokenBackoff(), func() (bool, error) {
		tr, last = r.request()
		return last == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("controllers: no token for %s/%s: %w", ControllerNamespace, r.name, last)
	}
	lifetime := max(time.Until(tr.Status.ExpirationTimestamp.Time), minTokenLifetime)
	leeway := lifetime * tokenLeewayPercent / 100
	return &oauth2.Token{AccessToken: tr.Status.Token, TokenType: "Bearer", Expiry: time.Now().Add(lifetime - leeway)}, nil
}

func (r *tokenRequester) request() (*authenticationv1.TokenRequest, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tokenRequestTimeout)
	defer cancel()
	if err := ensureServiceAccount(ctx, r.core, r.name); err != nil {
		return nil, err
	}
	seconds := int64(r.expiration / time.Second)
	req := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &seconds}}
	return r.core.ServiceAccounts(ControllerNamespace).CreateToken(ctx, r.name, req, metav1.CreateOptions{})
}

// ensureServiceAccount creates ControllerNamespace/<name> unless it
// exists. (Upstream also tries to create the namespace; kubesim's API
// server makes kube-system when it starts.)
func ensureServiceAccount(ctx context.Context, core corev1client.CoreV1Interface, name string) error {
	_, err := core.ServiceAccounts(ControllerNamespace).Get(ctx, name, metav1.GetOptions{})
	if !apierrors.IsNotFound(err) {
		return err
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ControllerNamespace, Name: name}}
	_, err = core.ServiceAccounts(ControllerNamespace).Create(ctx, sa, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
