package registry

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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
// makes its Endpoints (and their EndpointSlice, when served) point at
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
			Labels: map[string]string{"endpointslice.kubernetes.io/skip-mirror": "true"}},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: host}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: int32(port), Protocol: corev1.ProtocolTCP}},
		}},
	}
	return r.writeUnvalidated(ctx, r.Endpoints, ep)
}

// writeUnvalidated creates obj, or replaces the stored one if it differs,
// straight in storage.
func (r *Registry) writeUnvalidated(ctx context.Context, s *Store, obj *corev1.Endpoints) error {
	key := s.Key(obj.Namespace, obj.Name)
	_, err := s.storage.GuaranteedUpdate(ctx, key, nil, true, storage.WriteOptions{}, func(cur runtime.Object) (runtime.Object, error) {
		c := cur.(*corev1.Endpoints)
		if c.ResourceVersion != "" && apiequality.Semantic.DeepEqual(c.Subsets, obj.Subsets) {
			return nil, errUnchanged
		}
		next := obj.DeepCopy()
		if c.ResourceVersion == "" {
			next.UID, next.CreationTimestamp = uuid.NewUUID(), metav1.Now()
		} else {
			next.ObjectMeta = *c.ObjectMeta.DeepCopy()
			next.Labels = obj.Labels
		}
		return next, nil
	})
	if errors.Is(err, errUnchanged) {
		return nil
	}
	return err
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
