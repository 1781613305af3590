package cluster

import (
	"context"
	"crypto/tls"
	"log"
	"net"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/kubelet"
)

// kubeletClientUser is the CN of the client certificate the API server
// presents to the kubelets, kubeadm's apiserver-kubelet-client.
const kubeletClientUser = "kube-apiserver-kubelet-client"

// kubeletDialNote is what a request's trace says about reaching a node.
const kubeletDialNote = "kubesim's nodes are simulated and their addresses are not on this machine: the API server dials the port on 127.0.0.1, where that node's kubelet listens"

// kubeletClientConfig is how the API server reaches the kubelets: with
// the kube-apiserver-kubelet-client certificate, verifying the kubelets'
// serving certificates against the cluster's CA, and dialling every node
// address on loopback (dialKubelet).
func (c *Cluster) kubeletClientConfig() (apiserver.KubeletClientConfig, error) {
	certPEM, keyPEM, err := c.Authority.ClientCert(pki.Identity{User: kubeletClientUser})
	if err != nil {
		return apiserver.KubeletClientConfig{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return apiserver.KubeletClientConfig{}, err
	}
	return apiserver.KubeletClientConfig{
		TLS:         &tls.Config{Certificates: []tls.Certificate{cert}, RootCAs: c.Authority.CAPool(), MinVersion: tls.VersionTLS12},
		DialContext: dialKubelet,
		DialNote:    kubeletDialNote,
	}, nil
}

// dialKubelet connects to host:port of a simulated node at
// 127.0.0.1:port: every kubelet of the cluster listens on loopback, each
// on a port of its own, which its Node's status advertises. The TLS
// handshake still checks the node's name or address, which the kubelet's
// serving certificate carries.
func dialKubelet(ctx context.Context, network, addr string) (net.Conn, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: 5 * time.Second}
	return d.DialContext(ctx, network, net.JoinHostPort(kubelet.DefaultServingAddress, port))
}

// kubeletServing is how the kubelet of node serves: a serving certificate
// from the cluster's CA for its name, its address and loopback, client
// certificates verified against the same CA, only the API server's
// kubelet client let in, its HTTP errors in the cluster's log.
func (c *Cluster) kubeletServing(node, nodeIP string) (*kubelet.ServingConfig, error) {
	ips := []net.IP{net.IPv4(127, 0, 0, 1)}
	if ip := net.ParseIP(nodeIP); ip != nil {
		ips = append(ips, ip)
	}
	cert, err := c.Authority.IssueServingCert(node, []string{node}, ips)
	if err != nil {
		return nil, err
	}
	return &kubelet.ServingConfig{
		Cert: cert, ClientCAs: c.Authority.CAPool(), AllowedUsers: []string{kubeletClientUser},
		ErrorLog: log.New(c.logSink, "kubelet "+node+": ", log.LstdFlags),
	}, nil
}
