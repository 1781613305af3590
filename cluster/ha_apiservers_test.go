package cluster_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/controlplane"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
)

// haPair is two API servers of one cluster, on 127.0.0.1 and 127.0.0.2
// with the same port, sharing a PKI directory, on one 3-member etcd
// cluster: the first with the cluster's usual test settings (API only),
// the second as serve --apiserver-only starts it.
type haPair struct {
	ec     *etcdCluster
	port   int
	c1, c2 *cluster.Cluster
	client kubernetes.Interface // admin, through c1
}

// commonFreePort returns a port free on every one of ips at the time
// (skipping the test if one of them cannot be bound here).
func commonFreePort(t *testing.T, ips ...string) int {
	t.Helper()
	for range 20 {
		l, err := net.Listen("tcp", net.JoinHostPort(ips[0], "0"))
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		ok := true
		for _, ip := range ips[1:] {
			o, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(port)))
			if err != nil {
				ok = false
				break
			}
			o.Close()
		}
		l.Close()
		if ok {
			return port
		}
	}
	t.Fatalf("no port free on all of %v", ips)
	return 0
}

func startHAPair(t *testing.T) *haPair {
	t.Helper()
	if l, err := net.Listen("tcp", "127.0.0.2:0"); err != nil {
		t.Skipf("127.0.0.2 cannot be bound on this machine (%v): two API servers on one port need two loopback addresses", err)
	} else {
		l.Close()
	}
	p := &haPair{ec: startEtcdCluster(t, 3), port: commonFreePort(t, "127.0.0.1", "127.0.0.2")}
	pkiDir := filepath.Join(t.TempDir(), "pki")
	server := func(ip string) func(*cluster.Config) {
		return func(cfg *cluster.Config) { cfg.BindAddress, cfg.Port, cfg.PKIDir = ip, p.port, pkiDir }
	}
	p.c1 = clustertest.Start(t, clustertest.APIOnly, p.ec.configure, server("127.0.0.1"))
	p.c2 = clustertest.Start(t, p.ec.configure, server("127.0.0.2"), func(cfg *cluster.Config) {
		cfg.APIServerOnly = true
		cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
	})
	var err error
	if p.client, err = p.c1.AdminClient(); err != nil {
		t.Fatal(err)
	}
	return p
}

// endpointIPs reads the kubernetes Endpoints and EndpointSlice through
// client: their addresses (the slice's must be the same) and the port.
func endpointIPs(client kubernetes.Interface) ([]string, int32, error) {
	ctx := context.Background()
	ep, err := client.CoreV1().Endpoints("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, 0, err
	}
	var ips []string
	var port int32
	for _, s := range ep.Subsets {
		for _, a := range s.Addresses {
			ips = append(ips, a.IP)
		}
		for _, p := range s.Ports {
			port = p.Port
		}
	}
	slice, err := client.DiscoveryV1().EndpointSlices("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil {
		return nil, 0, err
	}
	var sliceIPs []string
	for _, e := range slice.Endpoints {
		sliceIPs = append(sliceIPs, e.Addresses...)
	}
	if !slices.Equal(ips, sliceIPs) {
		return ips, port, fmt.Errorf("EndpointSlice lists %v, Endpoints %v", sliceIPs, ips)
	}
	return ips, port, nil
}

// TestHAAPIServers: two API servers on one etcd cluster are one
// cluster. Each holds its identity Lease in kube-system; the kubernetes
// Endpoints and EndpointSlice list both addresses with the one port; the
// admin's client certificate, the student's token and a service account
// token made by one server authenticate on the other; closing one takes
// its address (and its key in /registry/masterleases) out at once.
func TestHAAPIServers(t *testing.T) {
	p := startHAPair(t)
	ctx := context.Background()

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	leases, err := p.client.CoordinationV1().Leases("kube-system").List(ctx, metav1.ListOptions{LabelSelector: controlplane.IdentityLeaseComponentLabelKey + "=kube-apiserver"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range leases.Items {
		names = append(names, l.Name)
	}
	for _, ip := range []string{"127.0.0.1", "127.0.0.2"} {
		if want := controlplane.IdentityLeaseName(host, net.JoinHostPort(ip, strconv.Itoa(p.port))); !slices.Contains(names, want) {
			eventually(t, "identity lease of "+ip, func() (bool, string) {
				_, err := p.client.CoordinationV1().Leases("kube-system").Get(ctx, want, metav1.GetOptions{})
				return err == nil, fmt.Sprintf("%s: %v (listed %v)", want, err, names)
			})
		}
	}

	want := []string{"127.0.0.1", "127.0.0.2"}
	eventually(t, "both servers in the kubernetes endpoints", func() (bool, string) {
		ips, port, err := endpointIPs(p.client)
		return err == nil && slices.Equal(ips, want) && port == int32(p.port), fmt.Sprintf("%v port %d (%v)", ips, port, err)
	})

	checkCredentialsWorkOn(t, p)

	if err := p.c2.Close(); err != nil {
		t.Fatalf("close the second server: %v", err)
	}
	if resp, err := p.ec.client().Get(ctx, registry.MasterLeasesPrefix+"127.0.0.2"); err != nil || len(resp.Kvs) != 0 {
		t.Errorf("key of 127.0.0.2 after its graceful shutdown: %v (%v), want none", resp, err)
	}
	eventually(t, "the closed server out of the endpoints", func() (bool, string) {
		ips, _, err := endpointIPs(p.client)
		return err == nil && slices.Equal(ips, want[:1]), fmt.Sprintf("%v (%v)", ips, err)
	})
}

// checkCredentialsWorkOn uses the first server's kubeconfigs, their URL
// changed to the second server, and a service account token the first
// one issued: each authenticates on the second (TLS verified against the
// shared CA, which signed the certificate naming 127.0.0.2).
func checkCredentialsWorkOn(t *testing.T, p *haPair) {
	t.Helper()
	ctx := context.Background()
	onSecond := func(kubeconfig string) kubernetes.Interface {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Host = p.c2.URL
		return kubernetes.NewForConfigOrDie(cfg)
	}
	if _, err := onSecond(p.c1.Kubeconfig).CoreV1().Namespaces().Get(ctx, "kube-system", metav1.GetOptions{}); err != nil {
		t.Errorf("admin's kubeconfig of the first server, on the second: %v", err)
	}
	if _, err := onSecond(p.c1.StudentKubeconfig).CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("student's kubeconfig of the first server, on the second: %v", err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "ha-check"}}
	if _, err := p.client.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := p.client.CoreV1().ServiceAccounts("default").CreateToken(ctx, "ha-check", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("token request on the first server: %v", err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", p.c1.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	saCfg := rest.AnonymousClientConfig(cfg)
	saCfg.Host, saCfg.BearerToken = p.c2.URL, tr.Status.Token
	_, err = kubernetes.NewForConfigOrDie(saCfg).CoreV1().Secrets("kube-system").List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsForbidden(err):
		if !strings.Contains(err.Error(), "system:serviceaccount:default:ha-check") {
			t.Errorf("the second server's answer to the service account token names no such user: %v", err)
		}
	case err == nil:
		t.Error("a fresh service account may list secrets in kube-system on the second server")
	default:
		t.Errorf("service account token of the first server, on the second: %v, want 403 naming the account", err)
	}
}

// TestAPIServerOnlyOptions: --apiserver-only needs --etcd-servers (a
// usage error naming both), and Complete turns every component off for
// it, saying so.
func TestAPIServerOnlyOptions(t *testing.T) {
	cfg := cluster.NewConfig()
	cfg.APIServerOnly = true
	err := cluster.ValidateServe(*cfg, 3)
	if err == nil || !strings.Contains(err.Error(), "--etcd-servers is required with --apiserver-only") {
		t.Errorf("validate --apiserver-only alone: %v, want --etcd-servers required", err)
	}
	cfg.EtcdServers = []string{"https://127.0.0.1:2379"}
	if err := cluster.ValidateServe(*cfg, 3); err != nil {
		t.Errorf("validate --apiserver-only --etcd-servers: %v", err)
	}
	filled := cfg.Complete()
	if cfg.Scheduler || cfg.ControllerManager || len(cfg.Nodes) > 0 || cfg.AttachNodes || cfg.MetricsServer {
		t.Errorf("after Complete: %+v, want no component", cfg)
	}
	if !slices.ContainsFunc(filled, func(s string) bool { return strings.HasPrefix(s, "apiserver-only") }) {
		t.Errorf("Complete filled %q, want it to say apiserver-only", filled)
	}
}
