package controllers

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestEndpointConditions: the conditions upstream gives an endpoint, as
// the slice written for one pod shows them.
func TestEndpointConditions(t *testing.T) {
	now := metav1.Now()
	tests := []struct {
		name                        string
		ready, deleting, publishAll bool
		want                        [3]bool // ready, serving, terminating
	}{
		{"ready", true, false, false, [3]bool{true, true, false}},
		{"not ready", false, false, false, [3]bool{false, false, false}},
		{"ready and terminating", true, true, false, [3]bool{false, true, true}},
		{"not ready, publishNotReadyAddresses", false, false, true, [3]bool{true, false, false}},
		{"terminating, publishNotReadyAddresses", true, true, true, [3]bool{true, true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := testEndpointPod("p", "10.244.1.5", 8080, tt.ready)
			if tt.deleting {
				pod.DeletionTimestamp = &now
			}
			svc := testService(intstr.FromInt32(80))
			svc.Spec.PublishNotReadyAddresses = tt.publishAll
			c, client := newTestSliceController(t, DefaultMaxEndpointsPerSlice)
			if err := c.reconcile(context.Background(), svc, []*corev1.Pod{pod}, nil, time.Time{}); err != nil {
				t.Fatal(err)
			}
			slices := listSlices(t, client)
			if len(slices) != 1 || len(slices[0].Endpoints) != 1 {
				t.Fatalf("slices %v, want one with the pod's endpoint", sliceShapes(slices))
			}
			ep := slices[0].Endpoints[0]
			cond := ep.Conditions
			if got := [3]bool{*cond.Ready, *cond.Serving, *cond.Terminating}; got != tt.want {
				t.Errorf("ready, serving, terminating = %v, want %v", got, tt.want)
			}
			if len(ep.Addresses) != 1 || ep.Addresses[0] != "10.244.1.5" || *ep.NodeName != "node-1" || ep.TargetRef.UID != pod.UID {
				t.Errorf("endpoint %+v, want the pod's IP, node and UID", ep)
			}
		})
	}
}

// TestReconcileSlicesPerPortsAndMax: endpoints go into slices of at most
// maxPerSlice, one set of slices per resolved ports (pods whose named
// port differs get slices of their own); a second reconcile of the same
// state writes nothing, and removing two pods of a full slice updates it
// without making new ones. (Which endpoints share a slice is the
// Reconciler's choice, not a fixed order.)
func TestReconcileSlicesPerPortsAndMax(t *testing.T) {
	c, client := newTestSliceController(t, 3)
	svc := testService(intstr.FromString("http"))
	var pods []*corev1.Pod
	for i := range 7 {
		pods = append(pods, testEndpointPod(fmt.Sprintf("a%d", i), fmt.Sprintf("10.244.1.%d", i+1), 8080, true))
	}
	for i := range 2 {
		pods = append(pods, testEndpointPod(fmt.Sprintf("b%d", i), fmt.Sprintf("10.244.2.%d", i+1), 9090, i == 0))
	}
	ctx := context.Background()
	if err := c.reconcile(ctx, svc, pods, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	slices := listSlices(t, client)
	if got, want := sliceShapes(slices), []string{"8080:1", "8080:3", "8080:3", "9090:2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("slices (port:endpoints) %v, want %v", got, want)
	}
	before := len(client.Actions())
	if err := c.reconcile(ctx, svc, pods, slices, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if writes := client.Actions()[before:]; len(writes) != 0 {
		t.Errorf("a second reconcile of the same state wrote %v", writes)
	}
	before = len(client.Actions())
	if err := c.reconcile(ctx, svc, withoutTwoOfAFullSlice(t, pods, slices), slices, time.Time{}); err != nil {
		t.Fatal(err)
	}
	for _, a := range client.Actions()[before:] {
		if a.GetVerb() != "update" {
			t.Errorf("removing two pods made a %s, want updates only", a.GetVerb())
		}
	}
	if n := countEndpoints(listSlices(t, client)); n != 7 {
		t.Errorf("%d endpoints after removing two pods, want 7", n)
	}
}

// TestReconcilePlaceholder: a Service with no endpoints gets one empty
// slice, and keeps it; its first endpoints go into that slice.
func TestReconcilePlaceholder(t *testing.T) {
	c, client := newTestSliceController(t, DefaultMaxEndpointsPerSlice)
	svc := testService(intstr.FromInt32(80))
	ctx := context.Background()
	if err := c.reconcile(ctx, svc, nil, nil, time.Time{}); err != nil {
		t.Fatal(err)
	}
	slices := listSlices(t, client)
	if len(slices) != 1 || len(slices[0].Endpoints) != 0 || len(slices[0].Ports) != 0 {
		t.Fatalf("slices %v, want one empty placeholder", sliceShapes(slices))
	}
	before := len(client.Actions())
	if err := c.reconcile(ctx, svc, nil, slices, time.Time{}); err != nil {
		t.Fatal(err)
	}
	if writes := client.Actions()[before:]; len(writes) != 0 {
		t.Errorf("the placeholder was written again: %v", writes)
	}
	// The first pods' slice takes the placeholder's name: one update,
	// not a delete and a create (upstream's finalize).
	before = len(client.Actions())
	pods := []*corev1.Pod{testEndpointPod("a", "10.244.1.1", 80, true)}
	if err := c.reconcile(ctx, svc, pods, slices, time.Time{}); err != nil {
		t.Fatal(err)
	}
	writes := client.Actions()[before:]
	if len(writes) != 1 || writes[0].GetVerb() != "update" {
		t.Fatalf("filling the placeholder: %v, want one update", writes)
	}
	if got := listSlices(t, client); len(got) != 1 || got[0].Name != slices[0].Name || len(got[0].Endpoints) != 1 {
		t.Errorf("slices %v after filling, want %s with 1 endpoint", sliceShapes(got), slices[0].Name)
	}
}

// withoutTwoOfAFullSlice is pods without two of those in the first slice
// of slices with three endpoints.
func withoutTwoOfAFullSlice(t *testing.T, pods []*corev1.Pod, slices []*discoveryv1.EndpointSlice) []*corev1.Pod {
	t.Helper()
	for _, s := range slices {
		if len(s.Endpoints) != 3 {
			continue
		}
		gone := map[string]bool{s.Endpoints[0].TargetRef.Name: true, s.Endpoints[1].TargetRef.Name: true}
		var out []*corev1.Pod
		for _, p := range pods {
			if !gone[p.Name] {
				out = append(out, p)
			}
		}
		return out
	}
	t.Fatal("no slice with three endpoints")
	return nil
}

func newTestSliceController(t *testing.T, maxPerSlice int) (*EndpointSliceController, *fake.Clientset) {
	t.Helper()
	client := fake.NewClientset()
	n := 0
	client.PrependReactor("create", "endpointslices", func(a k8stesting.Action) (bool, runtime.Object, error) {
		s := a.(k8stesting.CreateAction).GetObject().(*discoveryv1.EndpointSlice)
		if s.Name == "" {
			n++
			s.Name, s.UID = fmt.Sprintf("%s%05d", s.GenerateName, n), types.UID(fmt.Sprint("slice-", n))
		}
		return false, nil, nil
	})
	return sliceControllerOn(t, informers.NewSharedInformerFactory(client, 0), client, maxPerSlice), client
}

// sliceControllerOn is an EndpointSliceController that writes with
// client and whose listers, on factory, know node-1.
func sliceControllerOn(t *testing.T, factory informers.SharedInformerFactory, client kubernetes.Interface, maxPerSlice int) *EndpointSliceController {
	t.Helper()
	c, err := NewEndpointSliceController(factory, client, maxPerSlice, 0)
	if err != nil {
		t.Fatal(err)
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	if err := factory.Core().V1().Nodes().Informer().GetIndexer().Add(node); err != nil {
		t.Fatal(err)
	}
	return c
}

func testService(target intstr.IntOrString) *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: "svc-uid"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.96.0.10",
			IPFamilies: []corev1.IPFamily{corev1.IPv4Protocol},
			Ports:      []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP, TargetPort: target}}},
	}
}

// testEndpointPod is a running pod on node-1 with ip and a port named
// http.
func testEndpointPod(name, ip string, port int32, ready bool) *corev1.Pod {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c",
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: status}}},
	}
}

func listSlices(t *testing.T, client *fake.Clientset) []*discoveryv1.EndpointSlice {
	t.Helper()
	list, err := client.DiscoveryV1().EndpointSlices("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out []*discoveryv1.EndpointSlice
	for i := range list.Items {
		// As an informer hands them: client-go's typed decoding drops
		// apiVersion and kind, the fake client does not.
		list.Items[i].TypeMeta = metav1.TypeMeta{}
		out = append(out, &list.Items[i])
	}
	return out
}

// sliceShapes are "port:endpoints" per slice, sorted.
func sliceShapes(slices []*discoveryv1.EndpointSlice) []string {
	var out []string
	for _, s := range slices {
		port := "none"
		if len(s.Ports) > 0 {
			port = fmt.Sprint(*s.Ports[0].Port)
		}
		out = append(out, fmt.Sprintf("%s:%d", port, len(s.Endpoints)))
	}
	sort.Strings(out)
	return out
}

func countEndpoints(slices []*discoveryv1.EndpointSlice) int {
	n := 0
	for _, s := range slices {
		n += len(s.Endpoints)
	}
	return n
}
