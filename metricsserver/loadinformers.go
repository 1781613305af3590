package metricsserver

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	discoveryinformers "k8s.io/client-go/informers/discovery/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// slicesOfService is the index of EndpointSlices by the Service they
// belong to, namespace/name (their kubernetes.io/service-name label).
const slicesOfService = "service"

func indexByService(obj any) ([]string, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok || s.Labels[discoveryv1.LabelServiceName] == "" {
		return nil, nil
	}
	return []string{s.Namespace + "/" + s.Labels[discoveryv1.LabelServiceName]}, nil
}

// newServiceInformer is the server's Service informer (every namespace),
// each Service kept as slimService makes it.
func newServiceInformer(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	inf := coreinformers.NewServiceInformer(c, metav1.NamespaceAll, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	if err := inf.SetTransform(slimService); err != nil {
		panic(err) // only an informer already started refuses
	}
	return inf
}

// newSliceInformer is the server's EndpointSlice informer (every
// namespace), indexed by Service, each slice kept as slimSlice makes it.
func newSliceInformer(c kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
	inf := discoveryinformers.NewEndpointSliceInformer(c, metav1.NamespaceAll, resync,
		cache.Indexers{slicesOfService: indexByService})
	if err := inf.SetTransform(slimSlice); err != nil {
		panic(err)
	}
	return inf
}

// slimService keeps of a Service its name, namespace and
// CPULoadAnnotation: the load model reads nothing else.
func slimService(obj any) (any, error) {
	s, ok := obj.(*corev1.Service)
	if !ok {
		return obj, nil
	}
	out := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, UID: s.UID,
		ResourceVersion: s.ResourceVersion}}
	if v, ok := s.Annotations[CPULoadAnnotation]; ok {
		out.Annotations = map[string]string{CPULoadAnnotation: v}
	}
	return out, nil
}

// slimSlice keeps of an EndpointSlice its name, namespace, Service label,
// ports, and each endpoint's Ready condition and target.
func slimSlice(obj any) (any, error) {
	s, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return obj, nil
	}
	out := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: s.Name, Namespace: s.Namespace, UID: s.UID,
		ResourceVersion: s.ResourceVersion}, Ports: s.Ports}
	if svc, ok := s.Labels[discoveryv1.LabelServiceName]; ok {
		out.Labels = map[string]string{discoveryv1.LabelServiceName: svc}
	}
	for _, ep := range s.Endpoints {
		out.Endpoints = append(out.Endpoints, discoveryv1.Endpoint{TargetRef: ep.TargetRef,
			Conditions: discoveryv1.EndpointConditions{Ready: ep.Conditions.Ready}})
	}
	return out, nil
}
