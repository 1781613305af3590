package cluster_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/transport"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/useragent"
	"github.com/kubesim/kubesim/kubelet"
)

// peerCA is the peer's throwaway CA (start-peer's pki/ca.crt and
// ca.key), to sign client certificates of the users that kubeadm gives
// the components.
type peerCA struct {
	cert    *x509.Certificate
	certPEM []byte
	key     crypto.Signer
}

// loadPeerCA reads the peer's CA certificate and key (PKCS #8 or #1, as
// openssl writes them) from its run directory.
func loadPeerCA(b *testing.B, run peerRun) *peerCA {
	certPEM, err := os.ReadFile(filepath.Join(run.dir, "pki", "ca.crt"))
	if err != nil {
		b.Fatalf("peer CA: %v", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(run.dir, "pki", "ca.key"))
	if err != nil {
		b.Fatalf("peer CA key: %v", err)
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		b.Fatal("peer CA: no PEM block")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		b.Fatalf("peer CA: %v", err)
	}
	var key any
	if key, err = x509.ParsePKCS8PrivateKey(kb.Bytes); err != nil {
		key, err = x509.ParsePKCS1PrivateKey(kb.Bytes)
	}
	if err != nil {
		b.Fatalf("peer CA key: %v", err)
	}
	return &peerCA{cert: cert, certPEM: certPEM, key: key.(crypto.Signer)}
}

// clientCert returns a client certificate and key (PEM) for user in
// groups, valid for a day.
func (ca *peerCA) clientCert(b *testing.B, user string, groups ...string) (certPEM, keyPEM []byte) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		b.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: user, Organization: groups},
		NotBefore:    time.Now().Add(-time.Minute),
		NotAfter:     time.Now().Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		b.Fatalf("sign a client certificate for %s: %v", user, err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		b.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

// restConfig is a client configuration of the peer's API as user.
func (ca *peerCA) restConfig(b *testing.B, run peerRun, user string, groups ...string) *rest.Config {
	certPEM, keyPEM := ca.clientCert(b, user, groups...)
	return &rest.Config{Host: run.api, TLSClientConfig: rest.TLSClientConfig{CAData: ca.certPEM, CertData: certPEM, KeyData: keyPEM}}
}

// kubeconfig writes a kubeconfig of the peer's API as user into the
// peer's run directory and returns its path.
func (ca *peerCA) kubeconfig(b *testing.B, run peerRun, user string, groups ...string) string {
	certPEM, keyPEM := ca.clientCert(b, user, groups...)
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["peer"] = &clientcmdapi.Cluster{Server: run.api, CertificateAuthorityData: ca.certPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	cfg.Contexts["peer"] = &clientcmdapi.Context{Cluster: "peer", AuthInfo: user}
	cfg.CurrentContext = "peer"
	path := filepath.Join(run.dir, fmt.Sprintf("%s.kubeconfig", filepath.Base(user)))
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// startPeerCluster starts the peer as the VsPeer benchmarks set it
// beside kubesim: kube-apiserver storing JSON and writing an audit log at
// level Metadata (as kubesim does), its scheduler and controller manager
// at client rate limit qps (startPeerControlPlane), and kubesim's
// kubelets for nodes nodes (startPeerKubelets, whose stop it returns).
// It does not wait for the nodes to be Ready.
func startPeerCluster(b *testing.B, inst peerInstall, nodes, qps int) (run peerRun, stopKubelets func()) {
	run = startPeer(b, inst, []string{"--storage-media-type=" + apiserver.StorageMediaTypeJSON}, true)
	ca := loadPeerCA(b, run)
	startPeerControlPlane(b, inst, &run, ca, qps)
	return run, startPeerKubelets(b, run, ca, kubelet.DefaultNodes(nodes))
}

// configureLikeThePeer sets what kubesim shares with the peer in the
// VsPeer benchmarks: fsync on, as the peer's etcd has it, and upstream's
// Lease and node monitor grace period, which the peer's kubelets and
// controller manager have.
func configureLikeThePeer(cfg *cluster.Config) {
	cfg.UnsafeNoFsync = false
	cfg.NodeLeaseDuration, cfg.NodeMonitorGracePeriod = upstreamLease, upstreamGrace
}

// peerQPSKubesim is kubesim's components' client rate limit (QPS; the
// burst is twice it): cluster.restConfigFor's 200/400.
const peerQPSKubesim = 200

// startPeerControlPlane starts the peer's kube-scheduler and
// kube-controller-manager (../shared/peer/build --all) against run, as
// kubeadm runs them: each with a client certificate of its own user
// (system:kube-scheduler; system:kube-controller-manager, with
// --use-service-account-credentials and the service-account key),
// leader election on, no serving port. qps > 0 sets both components'
// --kube-api-qps to it and --kube-api-burst to twice it; 0 keeps
// upstream's defaults (the scheduler 50/100, the controller manager
// 20/30). Their pids join run.pids; both stop when b ends. It returns
// once both hold their Lease.
func startPeerControlPlane(b *testing.B, inst peerInstall, run *peerRun, ca *peerCA, qps int) {
	for _, name := range []string{"kube-scheduler", "kube-controller-manager"} {
		if fi, err := os.Stat(filepath.Join(inst.bin, name)); err != nil || fi.Mode()&0o111 == 0 {
			b.Skipf("%s\nno executable %s: the control plane needs build --all", peerNotBuilt, filepath.Join(inst.bin, name))
		}
	}
	var limits []string
	if qps > 0 {
		limits = []string{"--kube-api-qps=" + strconv.Itoa(qps), "--kube-api-burst=" + strconv.Itoa(2*qps)}
	}
	sched := ca.kubeconfig(b, *run, "system:kube-scheduler")
	cm := ca.kubeconfig(b, *run, "system:kube-controller-manager")
	pki := filepath.Join(run.dir, "pki")
	run.pids = append(run.pids,
		startPeerProcess(b, inst, *run, "kube-scheduler", append([]string{"--kubeconfig=" + sched,
			"--authentication-kubeconfig=" + sched, "--authorization-kubeconfig=" + sched, "--secure-port=0"}, limits...)),
		startPeerProcess(b, inst, *run, "kube-controller-manager", append([]string{"--kubeconfig=" + cm,
			"--authentication-kubeconfig=" + cm, "--authorization-kubeconfig=" + cm, "--secure-port=0",
			"--use-service-account-credentials", "--service-account-private-key-file=" + filepath.Join(pki, "sa.key"),
			"--root-ca-file=" + filepath.Join(pki, "ca.crt")}, limits...)))
	admin := newBenchClients(b, run.kubeconfig, 1)[0]
	for _, lease := range []string{"kube-scheduler", "kube-controller-manager"} {
		benchWait(b, 2*time.Minute, "the peer's "+lease+" holds its Lease", func(ctx context.Context) bool {
			l, err := admin.CoordinationV1().Leases(metav1.NamespaceSystem).Get(ctx, lease, metav1.GetOptions{})
			return err == nil && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != ""
		})
	}
}

// startPeerProcess starts one of the peer's binaries with args, its
// output in <name>.log of the run directory, and stops it (SIGTERM, then
// SIGKILL after 10 s) when b ends.
func startPeerProcess(b *testing.B, inst peerInstall, run peerRun, name string, args []string) int {
	logf, err := os.Create(filepath.Join(run.dir, name+".log"))
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(inst.bin, name), args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		b.Fatalf("start the peer's %s: %v", name, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(exited) }()
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	return cmd.Process.Pid
}

// startPeerKubelets starts kubesim's kubelets for nodes against the
// peer's API as kubesim's cluster starts its own (StartKubelet): the
// first cluster.RealKubelets as upstream's, each with its own client
// certificate (system:node:<name> in system:nodes, here signed by the
// peer's CA) and connection and its own pod watch, with the kubelet's
// user agent and media types and kubesim's components' rate limit
// (200/400); the others hollow, sharing one host (one pod and one Node
// informer) and one connection as a user in system:masters,
// impersonating their node (peerHollowClient). All at speed 0 (no
// simulated delays), with upstream's Lease (40 s, renewed every 10 s)
// and status periods; no serving port (no kubectl logs). Their logs
// (klog's, client-go's) go to kubelets.log in the peer's run directory.
// stop stops them all; so does the end of b.
func startPeerKubelets(b *testing.B, run peerRun, ca *peerCA, nodes []kubelet.NodeSpec) (stop func()) {
	routeKlogTo(b, filepath.Join(run.dir, "kubelets.log"))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	stop = sync.OnceFunc(func() { cancel(); wg.Wait() })
	b.Cleanup(stop)
	var hollow *peerHollow
	for i, spec := range nodes {
		cfg := kubelet.NewConfig(spec, nil)
		cfg.Speed = 0
		if i < cluster.RealKubelets {
			cfg.Client = peerKubeletClient(b, ca.restConfig(b, run, "system:node:"+spec.Name, "system:nodes"), nil)
		} else {
			if hollow == nil {
				hollow = startPeerHollow(b, ctx, &wg, ca.restConfig(b, run, "kubesim-hollow-nodes", "system:masters"))
			}
			cfg.Client, cfg.Hollow = hollow.clientFor(b, spec.Name), hollow.host
		}
		k, err := kubelet.New(cfg)
		if err != nil {
			b.Fatalf("kubelet %s: %v", spec.Name, err)
		}
		wg.Go(func() { k.Run(ctx) })
	}
	return stop
}

// peerKubeletClient is a kubelet's client of rc: the kubelet's user
// agent and media types, kubesim's components' rate limit, over rt if
// not nil.
func peerKubeletClient(b *testing.B, rc *rest.Config, rt http.RoundTripper) kubernetes.Interface {
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst = peerQPSKubesim, 2*peerQPSKubesim
	rc.UserAgent = useragent.Of(useragent.Kubelet)
	rc.ContentType = runtime.ContentTypeProtobuf
	rc.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	var client kubernetes.Interface
	var err error
	if rt == nil {
		client, err = kubernetes.NewForConfig(rc)
	} else {
		client, err = kubernetes.NewForConfigAndClient(rc, &http.Client{Transport: rt})
	}
	if err != nil {
		b.Fatal(err)
	}
	return client
}

// peerHollow is what the peer's hollow kubelets share: the host and the
// connection of admin (a user in system:masters).
type peerHollow struct {
	host  *kubelet.HollowHost
	admin *rest.Config
	rt    http.RoundTripper
}

// startPeerHollow starts a hollow host on admin's connection, running
// until ctx ends (wg waits for it).
func startPeerHollow(b *testing.B, ctx context.Context, wg *sync.WaitGroup, admin *rest.Config) *peerHollow {
	rt, err := rest.TransportFor(admin)
	if err != nil {
		b.Fatal(err)
	}
	client, err := kubernetes.NewForConfigAndClient(admin, &http.Client{Transport: rt})
	if err != nil {
		b.Fatal(err)
	}
	host, err := kubelet.NewHollowHost(client, kubelet.DefaultHollowRegistrations)
	if err != nil {
		b.Fatal(err)
	}
	wg.Go(func() { host.Run(ctx) })
	return &peerHollow{host: host, admin: admin, rt: rt}
}

// clientFor is node's hollow kubelet's client: the shared connection,
// each request impersonating system:node:<node> in system:nodes.
func (h *peerHollow) clientFor(b *testing.B, node string) kubernetes.Interface {
	rt := transport.NewImpersonatingRoundTripper(transport.ImpersonationConfig{
		UserName: "system:node:" + node, Groups: []string{"system:nodes"}}, h.rt)
	return peerKubeletClient(b, h.admin, rt)
}
