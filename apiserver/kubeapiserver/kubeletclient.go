package kubeapiserver

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

	"github.com/kubesim/kubesim/apiserver"
)

// defaultKubeletAddressTypes is kube-apiserver's default
// --kubelet-preferred-address-types.
var defaultKubeletAddressTypes = []corev1.NodeAddressType{
	corev1.NodeHostName, corev1.NodeInternalDNS, corev1.NodeInternalIP, corev1.NodeExternalDNS, corev1.NodeExternalIP,
}

// kubeletClient is the transport to the kubelets, made on first use.
type kubeletClient struct {
	once      sync.Once
	transport http.RoundTripper
}

func (c *kubeletClient) roundTripper(cfg *apiserver.KubeletClientConfig) http.RoundTripper {
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
func (ps *podStreams) kubeletLocation(ctx context.Context, nodeName string) (kubeletLocation, error) {
	obj, err := ps.reg.Nodes.Get(ctx, "", nodeName, &metav1.GetOptions{})
	if err != nil {
		return kubeletLocation{}, err
	}
	node, ok := obj.(*corev1.Node)
	if !ok {
		return kubeletLocation{}, apierrors.NewInternalError(fmt.Errorf("node %s: unexpected object %T", nodeName, obj))
	}
	types := ps.cfg.PreferredAddressTypes
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
		port = apiserver.DefaultKubeletPort
	}
	return kubeletLocation{host: host, port: strconv.Itoa(port)}, nil
}
