package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// The kubernetes Service, as kube-apiserver's bootstrap controller keeps
// it in default: port 443 named https to the API server's port.
const (
	KubernetesServiceName = "kubernetes"
	kubernetesServicePort = 443
)

// EnsureKubernetesService creates the kubernetes Service in default with
// the first address of the service CIDR (10.96.0.1) if it is missing, and
// makes its Endpoints and EndpointSlice point at
// host:port, the API server's address, as upstream's bootstrap controller
// and endpoint reconciler do.
//
// Upstream's validation refuses loopback endpoint addresses and a real
// kube-apiserver advertises a routable one; kubesim's API server listens
// on loopback, so its Endpoints are written to storage without that
// check. It is safe to run on every start.
func (r *Registry) EnsureKubernetesService(ctx context.Context, host string, port int) error {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{"component": "apiserver", "provider": "kubernetes"}},
		Spec: corev1.ServiceSpec{
			ClusterIP: r.ServiceAllocator.FirstIP(),
			Ports: []corev1.ServicePort{{Name: "https", Protocol: corev1.ProtocolTCP, Port: kubernetesServicePort,
				TargetPort: intstr.FromInt(port)}},
			SessionAffinity: corev1.ServiceAffinityNone,
			Type:            corev1.ServiceTypeClusterIP,
		},
	}
	defaultService(svc)
	// Looked up first, as upstream's controller does: a create would
	// fail on the cluster IP the stored one holds.
	if _, err := r.Services.Get(ctx, metav1.NamespaceDefault, KubernetesServiceName, nil); apierrors.IsNotFound(err) {
		if _, err := r.Services.Create(ctx, metav1.NamespaceDefault, svc, nil, Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create the kubernetes service: %w", err)
		}
	} else if err != nil {
		return err
	}
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelSkipMirror: "true"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: host}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: int32(port), Protocol: corev1.ProtocolTCP}},
		}},
	}
	if err := r.writeUnvalidated(ctx, r.Endpoints, ep, endpointsSubsetsEqual); err != nil {
		return err
	}
	return r.writeUnvalidated(ctx, r.EndpointSlices, kubernetesEndpointSlice(host, int32(port)), endpointSliceContentEqual)
}

// kubernetesEndpointSlice is the EndpointSlice upstream's EndpointsAdapter
// writes beside the kubernetes Endpoints: the same name, the
// kubernetes.io/service-name label, one ready endpoint per address and
// the Endpoints' ports. It has no managed-by label, so the endpointslice
// controller leaves it alone (the Service has no selector either).
func kubernetesEndpointSlice(host string, port int32) *discoveryv1.EndpointSlice {
	ready, name, proto := true, "https", corev1.ProtocolTCP
	addressType := discoveryv1.AddressTypeIPv4
	if ip := net.ParseIP(host); ip != nil && ip.To4() == nil {
		addressType = discoveryv1.AddressTypeIPv6
	}
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelServiceName: KubernetesServiceName}},
		AddressType: addressType,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{host}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}},
		Ports:       []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}},
	}
}

func endpointsSubsetsEqual(cur, want runtime.Object) bool {
	return apiequality.Semantic.DeepEqual(cur.(*corev1.Endpoints).Subsets, want.(*corev1.Endpoints).Subsets)
}

func endpointSliceContentEqual(cur, want runtime.Object) bool {
	c, w := cur.(*discoveryv1.EndpointSlice), want.(*discoveryv1.EndpointSlice)
	return c.AddressType == w.AddressType && apiequality.Semantic.DeepEqual(c.Endpoints, w.Endpoints) &&
		apiequality.Semantic.DeepEqual(c.Ports, w.Ports)
}

// writeUnvalidated creates obj, or replaces the stored one if same says
// it differs, straight in storage (keeping the stored metadata but
// obj's labels, and bumping the generation as the strategy would).
func (r *Registry) writeUnvalidated(ctx context.Context, s *Store, obj runtime.Object, same func(cur, want runtime.Object) bool) error {
	want, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	key := s.Key(want.GetNamespace(), want.GetName())
	_, err = s.storage.GuaranteedUpdate(ctx, key, nil, true, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		c, err := meta.Accessor(cur)
		if err != nil {
			return nil, err
		}
		if c.GetResourceVersion() != "" && same(cur, obj) {
			return nil, errUnchanged
		}
		next := obj.DeepCopyObject()
		n, _ := meta.Accessor(next)
		if c.GetResourceVersion() == "" {
			n.SetUID(uuid.NewUUID())
			n.SetCreationTimestamp(metav1.Now())
			n.SetGeneration(1)
			return next, nil
		}
		labels := n.GetLabels()
		copyObjectMeta(next, cur)
		n.SetLabels(labels)
		n.SetGeneration(c.GetGeneration() + 1)
		return next, nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
}

// copyObjectMeta sets dst's ObjectMeta to a copy of src's.
func copyObjectMeta(dst, src runtime.Object) {
	srcMeta := src.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta)
	*dst.(metav1.ObjectMetaAccessor).GetObjectMeta().(*metav1.ObjectMeta) = *srcMeta.DeepCopy()
}

var errUnchanged = errors.New("unchanged")

// HostPort splits an address such as 127.0.0.1:6443.
func HostPort(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, err
	}
	port, err := strconv.Atoi(p)
	return host, port, err
}
