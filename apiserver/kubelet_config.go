package apiserver

import (
	"context"
	"crypto/tls"
	"net"

	corev1 "k8s.io/api/core/v1"
)

// DefaultKubeletPort is the port asked for on a node whose status
// advertises none (kube-apiserver's --kubelet-port, 10250).
const DefaultKubeletPort = 10250

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
