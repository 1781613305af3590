package apiserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultKubeletPort is the port asked for on a node whose status
// advertises none (kube-apiserver's --kubelet-port, 10250).
const DefaultKubeletPort = 10250

// defaultKubeletAddressTypes is kube-apiserver's default
// --kubelet-preferred-address-types.
var defaultKubeletAddressTypes = []corev1.NodeAddressType{
	corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP,
}

// KubeletClientConfig is how the API server reaches the kubelets, for
// pods/log (kube-apiserver's --kubelet-* flags). The zero value asks
// each node's first preferred address over HTTPS, verified against the
// system's roots, with no client certificate.
type KubeletClientConfig struct {
	// TLS holds the client certificate the API server presents (its
	// --kubelet-client-certificate) and the CA the kubelets' serving
	// certificates are verified with (--kubelet-certificate-authority).
	TLS *tls.Config
	// PreferredAddressTypes picks the node address to ask, first match
	// wins (nil: Hostname, InternalDNS, InternalIP, ExternalDNS,
	// ExternalIP, upstream's default).
	PreferredAddressTypes []corev1.NodeAddressType
	// DialContext connects to a node's address (nil: a plain dialer). In
	// kubesim the nodes are simulated: their addresses are not on this
	// machine, and the assembler's dialer connects to the node's kubelet
	// on loopback instead.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// DialNote says, in the request trace, how DialContext reaches an
	// address ("" when it is dialled as it is).
	DialNote string
}

// kubeletClient is the transport to the kubelets, made on first use.
type kubeletClient struct {
	once      sync.Once
	transport http.RoundTripper
}

func (c *kubeletClient) roundTripper(cfg *KubeletClientConfig) http.RoundTripper {
	c.once.Do(func() {
		dial := cfg.DialContext
		if dial == nil {
			dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
		}
		var tlsCfg *tls.Config
		if cfg.TLS != nil {
			tlsCfg = cfg.TLS.Clone()
		}
		c.transport = &http.Transport{
			DialContext:         dial,
			TLSClientConfig:     tlsCfg,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 25,
			IdleConnTimeout:     90 * time.Second,
		}
	})
	return c.transport
}

// kubeletLocation is where a node's kubelet answers: https://host:port.
type kubeletLocation struct {
	host, port string
}

// kubeletLocation finds a node's kubelet as upstream's
// NodeConnectionInfoGetter does: the node's first address of a preferred
// type, and the port its status advertises (DefaultKubeletPort if none).
func (s *Server) kubeletLocation(ctx context.Context, nodeName string) (kubeletLocation, error) {
	obj, err := s.reg.Nodes.Get(ctx, "", nodeName, &metav1.GetOptions{})
	if err != nil {
		return kubeletLocation{}, err
	}
	node, ok := obj.(*corev1.Node)
	if !ok {
		return kubeletLocation{}, apierrors.NewInternalError(fmt.Errorf("node %s: unexpected object %T", nodeName, obj))
	}
	types := s.cfg.Kubelet.PreferredAddressTypes
	if types == nil {
		types = defaultKubeletAddressTypes
	}
	host := ""
	for _, t := range types {
		for _, a := range node.Status.Addresses {
			if a.Type == t && host == "" {
				host = a.Address
			}
		}
	}
	if host == "" {
		return kubeletLocation{}, apierrors.NewInternalError(fmt.Errorf("no preferred addresses found; known addresses: %v", node.Status.Addresses))
	}
	port := int(node.Status.DaemonEndpoints.KubeletEndpoint.Port)
	if port <= 0 {
		port = DefaultKubeletPort
	}
	return kubeletLocation{host: host, port: strconv.Itoa(port)}, nil
}
