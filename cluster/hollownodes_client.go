package cluster

import (
	"errors"
	"net/http"

	"k8s.io/client-go/kubernetes"
	typedcoordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/transport"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/kubesim/kubesim/internal/pki"
)

// hollowClientset is a hollow kubelet's client: the two API groups a
// kubelet calls (core and coordination), on the shared connection as its
// node, with one rate limiter for both as a clientset has. A whole
// clientset makes a REST client for each of some fifty groups, about
// 25 KB a kubelet (250 MB for 10,000 nodes). A request of any other
// group fails (refusedGroups) rather than going out as the connection's
// user, the admin.
type hollowClientset struct {
	kubernetes.Interface
	core         typedcorev1.CoreV1Interface
	coordination typedcoordinationv1.CoordinationV1Interface
}

func (c *hollowClientset) CoreV1() typedcorev1.CoreV1Interface { return c.core }

func (c *hollowClientset) CoordinationV1() typedcoordinationv1.CoordinationV1Interface {
	return c.coordination
}

// errHollowGroup is the answer to a hollow kubelet's request of a group
// it has no client for.
var errHollowGroup = errors.New("cluster: a hollow kubelet's client has only the core and coordination groups")

type refuseRoundTripper struct{}

func (refuseRoundTripper) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errHollowGroup
}

// refusedGroups is the clientset behind every hollow kubelet's other
// groups: each of its requests fails with errHollowGroup.
func refusedGroups(cfg *rest.Config) (kubernetes.Interface, error) {
	return kubernetes.NewForConfigAndClient(cfg, &http.Client{Transport: refuseRoundTripper{}})
}

// clientFor returns a client for a hollow kubelet of node: its own rate
// limiter (as each kubelet has), the kubelet's media types, the shared
// connection, and every request impersonating system:node:<node> in
// system:nodes.
func (h *hollowNodes) clientFor(node string) (kubernetes.Interface, error) {
	id := pki.Node(node)
	rt := transport.NewImpersonatingRoundTripper(transport.ImpersonationConfig{UserName: id.User, Groups: id.Groups}, h.transport)
	httpClient := &http.Client{Transport: rt}
	cfg := rest.CopyConfig(h.config)
	setKubeletContentTypes(cfg)
	cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	core, err := typedcorev1.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	coordination, err := typedcoordinationv1.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return &hollowClientset{Interface: h.refused, core: core, coordination: coordination}, nil
}
