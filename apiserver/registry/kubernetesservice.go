package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
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
// the first address of the service CIDR (10.96.0.1), port 443 to the API
// servers' port, if it is missing, as upstream's kubernetesservice
// controller does. Its Endpoints and EndpointSlice are the endpoint
// reconciler's (WriteKubernetesEndpoints). It is safe to run on every
// start, and from several API servers at once.
func (r *Registry) EnsureKubernetesService(ctx context.Context, port int) error {
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
	defaultService(svc, false)
	// Looked up first, as upstream's controller does: a create would
	// fail on the cluster IP the stored one holds.
	if _, err := r.Services.Get(ctx, metav1.NamespaceDefault, KubernetesServiceName, nil); apierrors.IsNotFound(err) {
		if _, err := r.Services.Create(ctx, metav1.NamespaceDefault, svc, nil, Options{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create the kubernetes service: %w", err)
		}
	} else if err != nil {
		return err
	}
	return nil
}

// KubernetesEndpoints returns the kubernetes Service's Endpoints as
// stored, or an error matching apierrors.IsNotFound.
func (r *Registry) KubernetesEndpoints(ctx context.Context) (*corev1.Endpoints, error) {
	obj, err := r.Endpoints.Get(ctx, metav1.NamespaceDefault, KubernetesServiceName, nil)
	if err != nil {
		return nil, err
	}
	return obj.(*corev1.Endpoints), nil
}

// WriteKubernetesEndpoints makes the kubernetes Endpoints hold ips (one
// subset, the addresses sorted, the one port https/port; no subset at
// all when ips is empty, as upstream's RepackSubsets leaves it) and the
// EndpointSlice of the same name mirror it, as upstream's
// EndpointsAdapter does; each is written only if it differs.
//
// Upstream's validation refuses loopback endpoint addresses and a real
// kube-apiserver advertises a routable one; kubesim's API servers listen
// on loopback, so these objects are written to storage without that
// check.
func (r *Registry) WriteKubernetesEndpoints(ctx context.Context, ips []string, port int32) error {
	ips = slices.Clone(ips)
	slices.Sort(ips)
	ips = slices.Compact(ips)
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelSkipMirror: "true"}},
	}
	if len(ips) > 0 {
		sub := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Name: "https", Port: port, Protocol: corev1.ProtocolTCP}}}
		for _, ip := range ips {
			sub.Addresses = append(sub.Addresses, corev1.EndpointAddress{IP: ip})
		}
		ep.Subsets = []corev1.EndpointSubset{sub}
	}
	if err := r.writeUnvalidated(ctx, r.Endpoints, ep, endpointsSubsetsEqual); err != nil {
		return err
	}
	return r.writeUnvalidated(ctx, r.EndpointSlices, kubernetesEndpointSlice(ips, port), endpointSliceContentEqual)
}

// kubernetesEndpointSlice is the EndpointSlice upstream's EndpointsAdapter
// writes beside the kubernetes Endpoints: the same name, the
// kubernetes.io/service-name label, one ready endpoint per address and
// the Endpoints' ports. It has no managed-by label, so the endpointslice
// controller leaves it alone (the Service has no selector either).
func kubernetesEndpointSlice(ips []string, port int32) *discoveryv1.EndpointSlice {
	ready, name, proto := true, "https", corev1.ProtocolTCP
	addressType := discoveryv1.AddressTypeIPv4
	if len(ips) > 0 {
		if ip := net.ParseIP(ips[0]); ip != nil && ip.To4() == nil {
			addressType = discoveryv1.AddressTypeIPv6
		}
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: KubernetesServiceName, Namespace: metav1.NamespaceDefault,
			Labels: map[string]string{discoveryv1.LabelServiceName: KubernetesServiceName}},
		AddressType: addressType,
		Endpoints:   []discoveryv1.Endpoint{},
	}
	for _, ip := range ips {
		slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	}
	if len(ips) > 0 {
		slice.Ports = []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}}
	}
	return slice
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
