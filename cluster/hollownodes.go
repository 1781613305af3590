package cluster

import (
	"crypto/tls"
	"log"
	"net/http"
	"sync"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/kubelet"
)

// RealKubelets is how many kubelets of a cluster run as upstream's at a
// time: each with its own client certificate and connection, its own pod
// watch (fieldSelector spec.nodeName=<node>) and a GET of its Node at
// every status check, which is what the lessons show. A kubelet started
// while as many run is hollow (kubelet.HollowHost): it shares the
// cluster's one hollow-node connection, pod informer and Node informer
// with the other hollow kubelets, as kubemark's hollow nodes make a large
// cluster cheap. 100 keeps every lesson (a few nodes) and the
// benchmarks of 100 nodes on upstream's wire.
const RealKubelets = 100

// realKubeletLimit is RealKubelets, but for a test that makes hollow
// kubelets without starting a hundred real ones.
var realKubeletLimit = RealKubelets

// hollowNodes is what a cluster's hollow kubelets share: the host, and
// the one HTTP/2 connection (the admin's client certificate) their
// requests take, each request acting as its kubelet's node by
// impersonation (Impersonate-User system:node:<node>, Impersonate-Group
// system:nodes), so that the Node authorizer and NodeRestriction judge
// it as the node's own. The audit log shows the admin as the user and
// the node as impersonatedUser.
type hollowNodes struct {
	host      *kubelet.HollowHost
	config    *rest.Config         // the admin's, for each kubelet's client
	transport http.RoundTripper    // the shared connection
	refused   kubernetes.Interface // refusedGroups
}

// clusterHollowNodes holds each running cluster's hollowNodes, made with
// its first hollow kubelet and dropped when the cluster stops. (A field
// of Cluster would do; cluster.go belongs to the assembler's struct.)
var clusterHollowNodes struct {
	sync.Mutex
	m map[*Cluster]*hollowNodes
}

// hollow returns the cluster's hollowNodes, starting them on first use.
// Called with c.compMu held.
func (c *Cluster) hollow() (*hollowNodes, error) {
	clusterHollowNodes.Lock()
	defer clusterHollowNodes.Unlock()
	if h := clusterHollowNodes.m[c]; h != nil {
		return h, nil
	}
	cfg, err := c.restConfigFor(pki.Admin())
	if err != nil {
		return nil, err
	}
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return nil, err
	}
	admin, err := kubernetes.NewForConfigAndClient(cfg, &http.Client{Transport: rt})
	if err != nil {
		return nil, err
	}
	host, err := kubelet.NewHollowHost(admin, kubelet.DefaultHollowRegistrations)
	if err != nil {
		return nil, err
	}
	// One listener for every hollow kubelet: each advertises its port,
	// and the TLS handshake (the node's name) picks the kubelet.
	if err := host.ServeHollow(kubelet.ServingConfig{ClientCAs: c.Authority.CAPool(), AllowedUsers: []string{kubeletClientUser},
		ErrorLog: log.New(c.logSink, "hollow kubelets: ", log.LstdFlags)}); err != nil {
		return nil, err
	}
	refused, err := refusedGroups(cfg)
	if err != nil {
		return nil, err
	}
	h := &hollowNodes{host: host, config: cfg, transport: rt, refused: refused}
	if clusterHollowNodes.m == nil {
		clusterHollowNodes.m = map[*Cluster]*hollowNodes{}
	}
	clusterHollowNodes.m[c] = h
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		host.Run(c.runCtx)
		clusterHollowNodes.Lock()
		delete(clusterHollowNodes.m, c)
		clusterHollowNodes.Unlock()
	}()
	return h, nil
}

// hollowKubeletServing is kubeletServing's configuration for a hollow
// kubelet, but with its serving certificate made on the first TLS
// handshake (kubectl logs of one of its pods) rather than at start; the
// kubelet serves on its host's shared listener.
func (c *Cluster) hollowKubeletServing(node, nodeIP string) *kubelet.ServingConfig {
	return &kubelet.ServingConfig{
		ClientCAs: c.Authority.CAPool(), AllowedUsers: []string{kubeletClientUser},
		ErrorLog: log.New(c.logSink, "kubelet "+node+": ", log.LstdFlags),
		IssueCert: func() (tls.Certificate, error) {
			s, err := c.kubeletServing(node, nodeIP)
			if err != nil {
				return tls.Certificate{}, err
			}
			return s.Cert, nil
		},
	}
}
