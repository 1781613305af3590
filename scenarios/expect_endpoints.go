package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/internal/flow"
)

// EndpointsExpectation: the endpoints of Service in Namespace, as From
// lists them, are Ready ready ones and NotReady not-ready ones (exactly);
// if ReadyPods is set the ready ones are those pods', if Port is set
// every port listed is that number, and if Slices is set the Service has
// that many EndpointSlices (an empty one counts: the controller keeps
// one for a Service without endpoints).
//
// From "EndpointSlice" (the default) reads the Service's EndpointSlices
// managed by the endpointslice controller (an endpoint counts as ready
// when conditions.ready is true; a terminating or unready one does not);
// "Endpoints" reads the core/v1 Endpoints object the endpoints
// controller keeps (addresses and notReadyAddresses).
type EndpointsExpectation struct {
	Service, Namespace string
	From               string
	Ready, NotReady    int64
	ReadyPods          []string // sorted; nil: not checked
	Port               int64    // 0: not checked
	Slices             *int64   // EndpointSlice only; nil: not checked
}

var _ prober = (*EndpointsExpectation)(nil)

// endpointsDoc is endpoints as written.
type endpointsDoc struct {
	Service   objectName    `yaml:"service" load:"required"`
	Namespace *str          `yaml:"namespace"`
	From      *str          `yaml:"from"`
	Ready     count         `yaml:"ready" load:"required"`
	NotReady  *count        `yaml:"notReady"`
	ReadyPods *[]objectName `yaml:"readyPods"`
	Port      *positive     `yaml:"port"`
	Slices    *count        `yaml:"slices"`
}

// endpointsSources are where endpoints reads them.
var endpointsSources = []string{"EndpointSlice", "Endpoints"}

// endpointSliceManagedBy is the managed-by label of the endpointslice
// controller's slices.
const endpointSliceManagedBy = "endpointslice-controller.k8s.io"

// Kind returns "endpoints".
func (e *EndpointsExpectation) Kind() string { return "endpoints" }

// String says what the Service's endpoints must be.
func (e *EndpointsExpectation) String() string {
	s := fmt.Sprintf("%s of service %s: %d ready, %d not ready", e.From, nsName(e.Namespace, e.Service), e.Ready, e.NotReady)
	if e.ReadyPods != nil {
		s += " (" + strings.Join(e.ReadyPods, ", ") + ")"
	}
	if e.Port != 0 {
		s += fmt.Sprintf(", port %d", e.Port)
	}
	if e.Slices != nil {
		s += fmt.Sprintf(", in %d slice(s)", *e.Slices)
	}
	return s
}

// parseEndpoints reads {service, namespace, from, ready, notReady,
// readyPods, port, slices}; ready is required, notReady defaults to 0.
func parseEndpoints(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[endpointsDoc](n)
	if err != nil {
		return nil, err
	}
	e := &EndpointsExpectation{Service: string(d.Service), Namespace: d.Namespace.or(metav1.NamespaceDefault), Ready: int64(d.Ready),
		ReadyPods: sortedNames(d.ReadyPods), Slices: int64Of(d.Slices)}
	if e.From, err = d.From.oneOf(valueOf(n, "from"), endpointsSources[0], endpointsSources); err != nil {
		return nil, err
	}
	if d.NotReady != nil {
		e.NotReady = int64(*d.NotReady)
	}
	if e.ReadyPods != nil && int64(len(e.ReadyPods)) != e.Ready {
		return nil, errAt(valueOf(n, "readyPods"), "%d pods, but ready is %d", len(e.ReadyPods), e.Ready)
	}
	if d.Port != nil {
		if e.Port = int64(*d.Port); e.Port > 65535 {
			return nil, errAt(valueOf(n, "port"), "%d is not a port number (1-65535)", e.Port)
		}
	}
	if e.Slices != nil && e.From == "Endpoints" {
		return nil, errAt(valueOf(n, "slices"), "only with from: EndpointSlice")
	}
	return e, nil
}

// endpointsSeen is what a probe found: the ready endpoints' pods, the
// number not ready, and the ports listed.
type endpointsSeen struct {
	readyPods []string
	notReady  int
	ports     []int32
	slices    int64
	// addresses are the ready and not ready addresses ("10.244.1.5
	// (web-1)"), portNames the ports ("https 6443/TCP"), as shown.
	readyAddrs, notReadyAddrs, portNames []string
}

func (s endpointsSeen) String() string {
	return fmt.Sprintf("%d ready %v, %d not ready, ports %v, %d slice(s)", len(s.readyPods), s.readyPods, s.notReady, s.ports, s.slices)
}

// probe reads the Service's slices or Endpoints from the API.
func (e *EndpointsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	var seen endpointsSeen
	var err error
	if e.From == "Endpoints" {
		seen, err = e.fromEndpoints(ctx, p)
	} else {
		seen, err = e.fromSlices(ctx, p)
	}
	if err != nil {
		return errString(err), false, nil
	}
	slices.Sort(seen.readyPods)
	ok := int64(len(seen.readyPods)) == e.Ready && int64(seen.notReady) == e.NotReady &&
		(e.ReadyPods == nil || slices.Equal(e.ReadyPods, seen.readyPods)) &&
		(e.Port == 0 || !slices.ContainsFunc(seen.ports, func(p int32) bool { return int64(p) != e.Port })) &&
		(e.Slices == nil || *e.Slices == seen.slices)
	if ok {
		p.saw(seen.shown(e.From, nsName(e.Namespace, e.Service)))
		return "", true, nil
	}
	return seen.String(), false, nil
}

func (e *EndpointsExpectation) fromSlices(ctx context.Context, p *player) (endpointsSeen, error) {
	sel := labels.Set{discoveryv1.LabelServiceName: e.Service, discoveryv1.LabelManagedBy: endpointSliceManagedBy}
	list, err := p.admin.DiscoveryV1().EndpointSlices(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return endpointsSeen{}, err
	}
	seen := endpointsSeen{slices: int64(len(list.Items))}
	for _, s := range list.Items {
		for _, port := range s.Ports {
			if port.Port != nil {
				seen.ports = append(seen.ports, *port.Port)
				seen.portNames = append(seen.portNames, portShown(ptr.Deref(port.Name, ""), *port.Port, ptr.Deref(port.Protocol, "")))
			}
		}
		for _, ep := range s.Endpoints {
			addr := addressShown(strings.Join(ep.Addresses, ","), ep.TargetRef)
			if ep.Conditions.Ready == nil || !*ep.Conditions.Ready {
				seen.notReady++
				seen.notReadyAddrs = append(seen.notReadyAddrs, addr)
				continue
			}
			seen.readyPods = append(seen.readyPods, targetName(ep.TargetRef, ep.Addresses))
			seen.readyAddrs = append(seen.readyAddrs, addr)
		}
	}
	return seen, nil
}

func (e *EndpointsExpectation) fromEndpoints(ctx context.Context, p *player) (endpointsSeen, error) {
	ep, err := p.admin.CoreV1().Endpoints(e.Namespace).Get(ctx, e.Service, metav1.GetOptions{})
	if err != nil {
		return endpointsSeen{}, err
	}
	var seen endpointsSeen
	for _, s := range ep.Subsets {
		for _, port := range s.Ports {
			seen.ports = append(seen.ports, port.Port)
			seen.portNames = append(seen.portNames, portShown(port.Name, port.Port, port.Protocol))
		}
		for _, a := range s.Addresses {
			seen.readyPods = append(seen.readyPods, targetName(a.TargetRef, []string{a.IP}))
			seen.readyAddrs = append(seen.readyAddrs, addressShown(a.IP, a.TargetRef))
		}
		for _, a := range s.NotReadyAddresses {
			seen.notReadyAddrs = append(seen.notReadyAddrs, addressShown(a.IP, a.TargetRef))
		}
		seen.notReady += len(s.NotReadyAddresses)
	}
	return seen, nil
}

// targetName is the target's name, or the addresses if it has none.
func targetName(ref *corev1.ObjectReference, addrs []string) string {
	if ref != nil && ref.Name != "" {
		return ref.Name
	}
	return strings.Join(addrs, ",")
}

// addressShown is an address with the name of what it points to, if any:
// "10.244.1.5 (web-1)".
func addressShown(ip string, ref *corev1.ObjectReference) string {
	if ref != nil && ref.Name != "" {
		return ip + " (" + ref.Name + ")"
	}
	return ip
}

// portShown is a port as listed: "https 6443/TCP".
func portShown(name string, port int32, protocol corev1.Protocol) string {
	s := fmt.Sprintf("%d/%s", port, protocol)
	if name != "" {
		s = name + " " + s
	}
	return s
}

// shown is what the probe read, from Endpoints or from the Service's
// EndpointSlices, in both languages.
func (s endpointsSeen) shown(from, service string) flow.Text {
	ready, notReady, ports := listShown(s.readyAddrs), listShown(s.notReadyAddrs), listShown(s.portNames)
	if from == "Endpoints" {
		w := shownWords["endpoints"]
		return flow.Text{En: fmt.Sprintf(w.En, service, ready.En, notReady.En, ports.En),
			Zh: fmt.Sprintf(w.Zh, service, ready.Zh, notReady.Zh, ports.Zh)}
	}
	w := shownWords["slices"]
	return flow.Text{En: fmt.Sprintf(w.En, service, s.slices, ready.En, notReady.En, ports.En),
		Zh: fmt.Sprintf(w.Zh, service, s.slices, ready.Zh, notReady.Zh, ports.Zh)}
}
