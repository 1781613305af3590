package cluster

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"net"
	"strconv"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/metricsserver"
)

// The metrics server's place in the cluster, as metrics-server's manifest
// (components.yaml) puts it: Service kube-system/metrics-server behind
// APIService v1beta1.metrics.k8s.io (groupPriorityMinimum 100,
// versionPriority 100), its service account bound to ClusterRole
// system:metrics-server.
const (
	metricsNamespace   = "kube-system"
	metricsService     = "metrics-server"
	metricsAPIService  = "v1beta1.metrics.k8s.io"
	metricsClusterRole = "system:metrics-server"
	// frontProxyUser is the CN of the aggregator's proxy client
	// certificate, kubeadm's front-proxy-client.
	frontProxyUser = "front-proxy-client"
)

// metricsIdentity is who the metrics server reads nodes and pods as: its
// service account's user name and groups. kubesim has no service
// accounts yet: the metrics server presents a client certificate with the
// name a token of kube-system/metrics-server would carry.
var metricsIdentity = pki.Identity{
	User:   "system:serviceaccount:" + metricsNamespace + ":" + metricsService,
	Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + metricsNamespace},
}

// metricsState is the cluster's metrics server: the Service table the
// aggregator resolves it through, and the running server. Its fields
// after mu are guarded by mu.
type metricsState struct {
	resolver  *aggregator.StaticResolver
	proxyCert tls.Certificate

	mu   sync.Mutex
	comp *component
	// port is the port the last server listened on: a restart takes it
	// again, as a restarted pod keeps its Service.
	port int
}

// aggregatorConfig makes the cluster's metrics state and returns the
// aggregator's configuration: the proxy client certificate (front-proxy-
// client, from the cluster's CA: kubesim has one CA where kubeadm has a
// separate front-proxy CA) and the resolver the metrics server is
// entered in. Deviation: a real aggregator resolves the Service to its
// endpoints; kubesim has no Services, so StartMetricsServer writes the
// server's loopback address in the table.
func (c *Cluster) aggregatorConfig(probePeriod time.Duration) (apiserver.AggregatorConfig, error) {
	certPEM, keyPEM, err := c.Authority.ClientCert(pki.Identity{User: frontProxyUser})
	if err != nil {
		return apiserver.AggregatorConfig{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return apiserver.AggregatorConfig{}, err
	}
	c.metrics = &metricsState{resolver: aggregator.NewStaticResolver(), proxyCert: cert}
	return apiserver.AggregatorConfig{ProxyClientCert: &c.metrics.proxyCert, Resolver: c.metrics.resolver, ProbePeriod: probePeriod}, nil
}

// StartMetricsServer starts the metrics server (again, after
// StopMetricsServer, on the same port), enters it in the aggregator's
// Service table and makes sure its RBAC and its APIService exist, as
// applying metrics-server's manifest would. It returns once the server
// answers its /readyz; the APIService becomes Available at the
// aggregator's next check (on change, so at once for a new APIService,
// or within its probe period). It is an error if it already runs.
func (c *Cluster) StartMetricsServer(ctx context.Context) error {
	m := c.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.comp != nil {
		return errors.New("cluster: the metrics server is already running")
	}
	admin, err := c.AdminClient()
	if err != nil {
		return err
	}
	if err := ensureMetricsRBAC(ctx, admin); err != nil {
		return fmt.Errorf("cluster: metrics server RBAC: %w", err)
	}
	s, err := c.newMetricsServer(m.port)
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(s.Addr())
	m.port, _ = strconv.Atoi(port)
	m.resolver.Set(metricsNamespace, metricsService, s.Addr())
	m.comp = c.runComponent(s.Run)
	if err := waitReady(ctx, "metrics server", s.URL(), metricsserver.ServiceName, c.Authority.CAPool(), c.readyWait); err != nil {
		return err
	}
	return c.ensureMetricsAPIService(ctx)
}

// newMetricsServer builds the metrics server on port (0: any), reading as
// metricsIdentity, serving as metrics-server.kube-system.svc, admitting
// the aggregator's proxy certificate.
func (c *Cluster) newMetricsServer(port int) (*metricsserver.Server, error) {
	client, err := c.clientFor(metricsIdentity)
	if err != nil {
		return nil, err
	}
	cert, err := c.Authority.IssueServingCert(metricsService, []string{metricsserver.ServiceName}, nil)
	if err != nil {
		return nil, err
	}
	cfg := metricsserver.NewConfig(client)
	cfg.Port, cfg.ServingCert, cfg.RequestHeaderCA = port, cert, c.Authority.CAPool()
	cfg.AllowedNames = []string{frontProxyUser}
	cfg.ErrorLog = log.New(c.logSink, "metrics-server: ", log.LstdFlags)
	return metricsserver.New(cfg)
}

// StopMetricsServer stops the metrics server. Its entry in the Service
// table stays, as a Service outlives its pod: the aggregator's next check
// finds nothing answering there and marks the APIService Available=False,
// reason FailedDiscoveryCheck, and requests for metrics.k8s.io get 503.
// (In a real cluster a deleted metrics-server pod leaves the Service
// without ready endpoints, and the reason is MissingEndpoints; a pod that
// runs but does not answer gives FailedDiscoveryCheck, as here.)
func (c *Cluster) StopMetricsServer() error {
	m := c.metrics
	m.mu.Lock()
	comp := m.comp
	m.comp = nil
	m.mu.Unlock()
	if comp == nil {
		return errors.New("cluster: the metrics server is not running")
	}
	return comp.stop()
}

// MetricsServerAddr is where the metrics server listens (host:port), ""
// if it never ran.
func (c *Cluster) MetricsServerAddr() string {
	m := c.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.port == 0 {
		return ""
	}
	return net.JoinHostPort(metricsserver.DefaultBindAddress, strconv.Itoa(m.port))
}

// ensureMetricsRBAC makes the manifest's ClusterRole system:metrics-server
// (nodes and pods: get, list, watch; nodes/metrics: get), plus what
// kubesim's load knob reads (services: get, list, watch; endpointslices:
// list, watch; a real metrics-server reads neither), and its
// ClusterRoleBinding to the service account, if missing. A role of an
// older data dir without the knob's rules gets them.
func ensureMetricsRBAC(ctx context.Context, admin kubernetes.Interface) error {
	role := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: metricsClusterRole, Labels: map[string]string{"k8s-app": metricsService}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"nodes/metrics"}, Verbs: []string{"get"}},
			{APIGroups: []string{""}, Resources: []string{"pods", "nodes"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch"}},
			{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"list", "watch"}},
		},
	}
	_, err := admin.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := admin.RbacV1().ClusterRoles().Get(ctx, metricsClusterRole, metav1.GetOptions{})
			if err != nil || equality.Semantic.DeepEqual(cur.Rules, role.Rules) {
				return err
			}
			cur.Rules = role.Rules
			_, err = admin.RbacV1().ClusterRoles().Update(ctx, cur, metav1.UpdateOptions{})
			return err
		})
	}
	if err != nil {
		return err
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: metricsClusterRole, Labels: map[string]string{"k8s-app": metricsService}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: metricsClusterRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: metricsService, Namespace: metricsNamespace}},
	}
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return ensureMetricsReader(ctx, admin)
}

// metricsAPIServiceSpec is the APIService of the manifest, except that
// the aggregator verifies the server against the cluster's CA
// (caBundle) where the manifest sets insecureSkipTLSVerify.
func (c *Cluster) metricsAPIServiceSpec() apiregv1.APIServiceSpec {
	port := int32(443)
	return apiregv1.APIServiceSpec{
		Group: "metrics.k8s.io", Version: "v1beta1",
		Service:              &apiregv1.ServiceReference{Namespace: metricsNamespace, Name: metricsService, Port: &port},
		CABundle:             c.Authority.CACertPEM(),
		GroupPriorityMinimum: 100, VersionPriority: 100,
	}
}

// ensureMetricsAPIService creates APIService v1beta1.metrics.k8s.io, or
// brings its spec back to metricsAPIServiceSpec, as admin.
func (c *Cluster) ensureMetricsAPIService(ctx context.Context) error {
	cfg, err := c.restConfigFor(pki.Admin())
	if err != nil {
		return err
	}
	client, err := aggregatorclient.NewForConfig(cfg)
	if err != nil {
		return err
	}
	apiServices := client.ApiregistrationV1().APIServices()
	spec := c.metricsAPIServiceSpec()
	cur, err := apiServices.Get(ctx, metricsAPIService, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		a := &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: metricsAPIService, Labels: map[string]string{"k8s-app": metricsService}}, Spec: spec}
		_, err = apiServices.Create(ctx, a, metav1.CreateOptions{})
		return err
	case err != nil:
		return err
	case equality.Semantic.DeepEqual(cur.Spec, spec):
		return nil
	}
	cur.Spec = spec
	_, err = apiServices.Update(ctx, cur, metav1.UpdateOptions{})
	return err
}
