package cluster

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authentication/authenticatorfactory"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	"k8s.io/apiserver/pkg/authorization/path"
	"k8s.io/apiserver/pkg/authorization/union"
	genericapifilters "k8s.io/apiserver/pkg/endpoints/filters"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	// leader_election_master_status: client-go's leader election reports
	// to component-base's metrics, as in kube-scheduler and
	// kube-controller-manager, which import this provider.
	_ "k8s.io/component-base/metrics/prometheus/clientgo/leaderelection"

	"github.com/kubesim/kubesim/internal/componentmetrics"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/scheduler"
)

// componentEndpoints are the secure ports of the scheduler and the
// controller manager, where kube-scheduler (10259) and
// kube-controller-manager (10257) serve their /metrics. kubesim listens
// on free loopback ports instead of those numbers (several clusters may
// run on one machine); each serves its component's view of the
// process's metrics (package componentmetrics), behind upstream's
// delegated authentication and authorization: a client certificate of
// the cluster's CA or a bearer token the API server's TokenReview
// accepts (else the anonymous user), then system:masters, the always
// allowed health paths, or the API server's SubjectAccessReview. They are
// served with the API server's serving certificate.
type componentEndpoints struct {
	scheduler, controllerManager string
}

// SchedulerMetricsURL is the base URL of the scheduler's secure port
// (GET /metrics), "" if the cluster runs no scheduler.
func (c *Cluster) SchedulerMetricsURL() string { return c.endpoints.scheduler }

// ControllerManagerMetricsURL is the base URL of the controller
// manager's secure port (GET /metrics), "" if it runs none.
func (c *Cluster) ControllerManagerMetricsURL() string { return c.endpoints.controllerManager }

// startComponentEndpoints starts the secure ports of the components cfg
// runs.
func (c *Cluster) startComponentEndpoints(cfg *Config) (err error) {
	if cfg.Scheduler {
		c.endpoints.scheduler, err = c.serveComponent(pki.Scheduler(), componentmetrics.Scheduler, scheduler.UpdatePendingPodsMetric)
		if err != nil {
			return fmt.Errorf("cluster: the scheduler's secure port: %w", err)
		}
	}
	if cfg.ControllerManager {
		c.endpoints.controllerManager, err = c.serveComponent(pki.ControllerManager(), componentmetrics.ControllerManager, nil)
		if err != nil {
			return fmt.Errorf("cluster: the controller manager's secure port: %w", err)
		}
	}
	return nil
}

// webhookRetryBackoff is how the reviews are retried, upstream's default
// (k8s.io/apiserver's DefaultAuthWebhookRetryBackoff: 0.5 s, factor 1.5,
// jitter 0.2, 5 steps).
var webhookRetryBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// alwaysAllowPaths are kube-scheduler's and kube-controller-manager's
// default --authorization-always-allow-paths.
var alwaysAllowPaths = []string{"/healthz", "/readyz", "/livez"}

// serveComponent serves view on a loopback port until the cluster
// stops, its reviews sent to the API server as id (the component's own
// user, whose role allows tokenreviews and subjectaccessreviews). It
// returns the port's base URL.
func (c *Cluster) serveComponent(id pki.Identity, view componentmetrics.View, refresh func()) (string, error) {
	client, err := c.clientFor(id)
	if err != nil {
		return "", err
	}
	h, err := c.delegatedAuth(client, http.Handler(componentMux(view, refresh)))
	if err != nil {
		return "", err
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", c.Authority.ServingTLSConfig())
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(c.logSink, id.User+" secure port: ", 0)}
	c.wg.Go(func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(c.logSink, "cluster: %s secure port: %v\n", id.User, err)
		}
	})
	c.wg.Go(func() {
		<-c.runCtx.Done()
		_ = srv.Close()
	})
	return "https://" + ln.Addr().String(), nil
}

// componentMux serves /metrics as component-base's handler with reset.
func componentMux(view componentmetrics.View, refresh func()) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", componentmetrics.Handler(view, refresh))
	return mux
}

// delegatedAuth puts h behind upstream's filters with the delegated
// authenticator and authorizer kube-scheduler and
// kube-controller-manager build by default: anonymous allowed, client
// certificates of the cluster's CA, bearer tokens by TokenReview; then
// system:masters, the always-allowed paths, or SubjectAccessReview.
func (c *Cluster) delegatedAuth(client kubernetes.Interface, h http.Handler) (http.Handler, error) {
	ca, err := dynamiccertificates.NewStaticCAContent("client-ca", c.Authority.CACertPEM())
	if err != nil {
		return nil, err
	}
	authn, _, err := authenticatorfactory.DelegatingAuthenticatorConfig{
		Anonymous:                          &apiserver.AnonymousAuthConfig{Enabled: true},
		TokenAccessReviewClient:            client.AuthenticationV1(),
		TokenAccessReviewTimeout:           10 * time.Second,
		CacheTTL:                           10 * time.Second,
		WebhookRetryBackoff:                &webhookRetryBackoff,
		ClientCertificateCAContentProvider: ca,
	}.New()
	if err != nil {
		return nil, err
	}
	sar, err := authorizerfactory.DelegatingAuthorizerConfig{
		SubjectAccessReviewClient: client.AuthorizationV1(),
		AllowCacheTTL:             10 * time.Second,
		DenyCacheTTL:              10 * time.Second,
		WebhookRetryBackoff:       &webhookRetryBackoff,
	}.New()
	if err != nil {
		return nil, err
	}
	paths, err := path.NewAuthorizer(alwaysAllowPaths)
	if err != nil {
		return nil, err
	}
	authz, err := union.New(
		union.NamedAuthorizer{AuthorizerName: "privileged-groups", Authorizer: authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup)},
		union.NamedAuthorizer{AuthorizerName: "always-allow-paths", Authorizer: paths},
		union.NamedAuthorizer{AuthorizerName: "webhook", Authorizer: sar},
	)
	if err != nil {
		return nil, err
	}
	codecs := scheme.Codecs.WithoutConversion()
	h = genericapifilters.WithAuthorization(h, authz, codecs)
	h = genericapifilters.WithAuthentication(h, authn, genericapifilters.Unauthorized(codecs), nil, nil)
	h = genericapifilters.WithRequestInfo(h, &request.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")})
	return h, nil
}
