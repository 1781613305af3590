package kubelet

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// lookupTimeout bounds one Service lookup (real time: it is not part of
// the simulation).
const lookupTimeout = 10 * time.Second

// apiServices looks Services up through the API server with the
// kubelet's own identity: a GET of services/<name> and of
// endpoints/<name>, the reads system:node may make (it may get, list
// and watch Services, which a real kubelet does for the pods' service
// environment variables, and get Endpoints; it may not read
// EndpointSlices). The Endpoints object, kept by the endpoints
// controller, says which endpoints are ready.
type apiServices struct {
	client kubernetes.Interface
}

var _ serviceLookup = apiServices{}

// lookupService reads Service namespace/name and its ready endpoints. A
// Service that does not exist is found false, with no error.
func (s apiServices) lookupService(namespace, name string) (serviceInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	svc, err := s.client.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return serviceInfo{}, nil
	}
	if err != nil {
		return serviceInfo{}, err
	}
	info := serviceInfo{found: true, clusterIP: svc.Spec.ClusterIP, externalName: svc.Spec.Type == corev1.ServiceTypeExternalName}
	for _, p := range svc.Spec.Ports {
		info.ports = append(info.ports, p.Port)
	}
	ep, err := s.client.CoreV1().Endpoints(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return info, nil
	}
	if err != nil {
		return serviceInfo{}, err
	}
	for _, ss := range ep.Subsets {
		for _, a := range ss.Addresses {
			info.ready = append(info.ready, a.IP)
		}
	}
	return info, nil
}
