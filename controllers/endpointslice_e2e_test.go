package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/controllers"
)

// The kubelet's readiness annotation (annotationReadiness; the
// controllers' tests do not import the kubelet).
const (
	annotationReadiness = "kubesim.io/readiness"
	readinessFail       = "fail"
	readinessPass       = "pass"
)

// TestServiceEndpointsFollowPods: a Service selecting a Deployment's pods
// gets one EndpointSlice (labels, owner, generateName, IPv4, the named
// targetPort resolved to the container's port) and an Endpoints object
// that list the ready pods, and both follow a scale up, a scale down, a
// pod turning unready (kubesim.io/readiness=fail) and ready again.
func TestServiceEndpointsFollowPods(t *testing.T) {
	_, admin := startCluster(t)
	d := newDeployment("web", 3)
	d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	mustCreateDeployment(t, admin, d)
	svc := mustCreateService(t, admin, "web", intstr.FromString("http"))

	slice := waitSliceEndpoints(t, admin, "web", 3, 3)
	checkSliceShape(t, slice, svc)
	waitEndpointsAddresses(t, admin, "web", 3, 0)

	scaleDeployment(t, admin, "web", 5)
	waitSliceEndpoints(t, admin, "web", 5, 5)
	waitEndpointsAddresses(t, admin, "web", 5, 0)
	scaleDeployment(t, admin, "web", 2)
	waitSliceEndpoints(t, admin, "web", 2, 2)
	waitEndpointsAddresses(t, admin, "web", 2, 0)

	pod := podsOf(t, admin, "web")[0]
	setReadiness(t, admin, pod.Name, readinessFail)
	slice = waitSliceEndpoints(t, admin, "web", 2, 1)
	ep := endpointOf(slice, pod.Name)
	if ep == nil || *ep.Conditions.Ready || *ep.Conditions.Serving || *ep.Conditions.Terminating {
		t.Errorf("unready pod's endpoint %+v, want ready false, serving false, terminating false", ep)
	}
	e := waitEndpointsAddresses(t, admin, "web", 1, 1)
	if got := e.Subsets[0].NotReadyAddresses[0].TargetRef.Name; got != pod.Name {
		t.Errorf("notReadyAddresses has %s, want %s", got, pod.Name)
	}
	setReadiness(t, admin, pod.Name, readinessPass)
	waitSliceEndpoints(t, admin, "web", 2, 2)
	waitEndpointsAddresses(t, admin, "web", 2, 0)
}

// TestServiceEndpointsGoWithService: deleting the Service removes its
// Endpoints (the endpoints controller) and its slices (the garbage
// collector, through their ownerReference).
func TestServiceEndpointsGoWithService(t *testing.T) {
	_, admin := startCluster(t)
	ctx := context.Background()
	mustCreateDeployment(t, admin, newDeployment("db", 1))
	mustCreateService(t, admin, "db", intstr.FromInt32(5432))
	waitSliceEndpoints(t, admin, "db", 1, 1)
	waitEndpointsAddresses(t, admin, "db", 1, 0)
	if err := admin.CoreV1().Services("default").Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the Endpoints and slices of db gone", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().Endpoints("default").Get(ctx, "db", metav1.GetOptions{})
		if !apierrors.IsNotFound(err) {
			return false, nil
		}
		return len(slicesOf(t, admin, "db")) == 0, nil
	})
}

// TestEndpointSliceInformerSyncs: a client-go shared informer on
// endpointslices lists and watches them (it syncs, then sees a new
// Service's slice arrive).
func TestEndpointSliceInformerSyncs(t *testing.T) {
	_, admin := startCluster(t)
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(admin, 0)
	defer func() { cancel(); factory.Shutdown() }()
	inf := factory.Discovery().V1().EndpointSlices()
	seen := make(chan string, 16)
	if _, err := inf.Informer().AddEventHandler(handlerFunc(func(obj any) {
		if s, ok := obj.(*discoveryv1.EndpointSlice); ok {
			select {
			case seen <- s.Labels[discoveryv1.LabelServiceName]:
			default:
			}
		}
	})); err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx.Done())
	for typ, ok := range factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer for %v did not sync", typ)
		}
	}
	mustCreateDeployment(t, admin, newDeployment("api", 1))
	mustCreateService(t, admin, "api", intstr.FromInt32(80))
	waitFor(t, "the informer to see api's slice", func(context.Context) (bool, error) {
		for {
			select {
			case name := <-seen:
				if name == "api" {
					return true, nil
				}
			default:
				return false, nil
			}
		}
	})
	list, err := inf.Lister().EndpointSlices("default").List(labelsFor("api"))
	if err != nil || len(list) != 1 {
		t.Fatalf("lister has %d slices of api (%v), want 1", len(list), err)
	}
}

// mustCreateService creates a ClusterIP Service name selecting app=name,
// port 80 named http to target.
func mustCreateService(t *testing.T, admin kubernetes.Interface, name string, target intstr.IntOrString) *corev1.Service {
	t.Helper()
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"tier": "front"}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": name},
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: target}}}}
	out, err := admin.CoreV1().Services("default").Create(context.Background(), svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create service %s: %v", name, err)
	}
	return out
}

// slicesOf lists the EndpointSlices of Service name managed by the
// controller.
func slicesOf(t *testing.T, admin kubernetes.Interface, name string) []discoveryv1.EndpointSlice {
	t.Helper()
	list, err := admin.DiscoveryV1().EndpointSlices("default").List(context.Background(),
		metav1.ListOptions{LabelSelector: labelsFor(name).String()})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitSliceEndpoints waits until Service name has exactly one slice,
// listing n endpoints of which ready are ready, each the IP of a pod of
// the Service that is not being deleted.
func waitSliceEndpoints(t *testing.T, admin kubernetes.Interface, name string, n, ready int) *discoveryv1.EndpointSlice {
	t.Helper()
	var got *discoveryv1.EndpointSlice
	waitFor(t, fmt.Sprintf("service %s's slice with %d endpoints, %d ready", name, n, ready), func(ctx context.Context) (bool, error) {
		list := slicesOf(t, admin, name)
		if len(list) != 1 {
			return false, nil
		}
		got = &list[0]
		ips := map[string]string{}
		for _, p := range podsOf(t, admin, name) {
			ips[p.Name] = p.Status.PodIP
		}
		r := 0
		for _, ep := range got.Endpoints {
			if ep.TargetRef == nil || len(ep.Addresses) != 1 || ips[ep.TargetRef.Name] != ep.Addresses[0] {
				return false, nil
			}
			if *ep.Conditions.Ready {
				r++
			}
		}
		return len(got.Endpoints) == n && r == ready, nil
	})
	return got
}

// checkSliceShape checks what upstream's controller puts on a slice.
func checkSliceShape(t *testing.T, s *discoveryv1.EndpointSlice, svc *corev1.Service) {
	t.Helper()
	if s.Labels[discoveryv1.LabelManagedBy] != controllers.EndpointSliceManagedBy || s.Labels["tier"] != "front" {
		t.Errorf("labels %v, want managed-by %s and the Service's tier=front", s.Labels, controllers.EndpointSliceManagedBy)
	}
	if s.GenerateName != "web-" || !strings.HasPrefix(s.Name, "web-") {
		t.Errorf("name %q generateName %q, want web-…", s.Name, s.GenerateName)
	}
	ref := metav1.GetControllerOf(s)
	if ref == nil || ref.UID != svc.UID || ref.Kind != "Service" || ref.BlockOwnerDeletion == nil || !*ref.BlockOwnerDeletion {
		t.Errorf("controller reference %+v, want Service web's, blocking", ref)
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Errorf("addressType %s, want IPv4", s.AddressType)
	}
	if len(s.Ports) != 1 || *s.Ports[0].Port != 8080 || *s.Ports[0].Name != "http" || *s.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %s, want http 8080/TCP (targetPort http resolved)", portsString(s.Ports))
	}
	for _, ep := range s.Endpoints {
		if ep.NodeName == nil || !strings.HasPrefix(*ep.NodeName, "node-") || ep.TargetRef.Kind != "Pod" || ep.TargetRef.UID == "" {
			t.Errorf("endpoint %+v, want a node name and a pod target", ep)
		}
	}
}

func portsString(ports []discoveryv1.EndpointPort) string {
	var out []string
	for _, p := range ports {
		out = append(out, fmt.Sprintf("%v %v/%v", deref(p.Name), deref(p.Port), deref(p.Protocol)))
	}
	return fmt.Sprint(out)
}

func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// waitEndpointsAddresses waits until the Endpoints of name list ready
// addresses and notReady not-ready ones, on port 8080 or the Service's
// numeric target, managed by the endpoint controller.
func waitEndpointsAddresses(t *testing.T, admin kubernetes.Interface, name string, ready, notReady int) *corev1.Endpoints {
	t.Helper()
	var e *corev1.Endpoints
	waitFor(t, fmt.Sprintf("endpoints %s with %d ready and %d not ready addresses", name, ready, notReady), func(ctx context.Context) (bool, error) {
		var err error
		if e, err = admin.CoreV1().Endpoints("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
			return false, nil
		}
		if len(e.Subsets) != 1 || e.Labels[controllers.LabelEndpointsManagedBy] != controllers.EndpointsControllerName {
			return false, nil
		}
		s := e.Subsets[0]
		return len(s.Addresses) == ready && len(s.NotReadyAddresses) == notReady && len(s.Ports) == 1, nil
	})
	return e
}

func endpointOf(s *discoveryv1.EndpointSlice, pod string) *discoveryv1.Endpoint {
	for i := range s.Endpoints {
		if s.Endpoints[i].TargetRef != nil && s.Endpoints[i].TargetRef.Name == pod {
			return &s.Endpoints[i]
		}
	}
	return nil
}

// scaleDeployment sets the Deployment's replicas.
func scaleDeployment(t *testing.T, admin kubernetes.Interface, name string, n int32) {
	t.Helper()
	patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
	if _, err := admin.AppsV1().Deployments("default").Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// setReadiness annotates the pod with kubesim.io/readiness=value.
func setReadiness(t *testing.T, admin kubernetes.Interface, pod, value string) {
	t.Helper()
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, annotationReadiness, value)
	if _, err := admin.CoreV1().Pods("default").Patch(context.Background(), pod, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}

// handlerFunc is an informer handler that calls f on adds and updates.
type handlerFunc func(obj any)

func (f handlerFunc) OnAdd(obj any, _ bool) { f(obj) }
func (f handlerFunc) OnUpdate(_, obj any)   { f(obj) }
func (f handlerFunc) OnDelete(obj any)      {}

// labelsFor selects the slices of Service name that the controller
// manages.
func labelsFor(name string) labels.Selector {
	return labels.SelectorFromSet(labels.Set{discoveryv1.LabelServiceName: name,
		discoveryv1.LabelManagedBy: controllers.EndpointSliceManagedBy})
}
