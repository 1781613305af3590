package apiserver_test

import (
	"context"
	"net/http"
	"path"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

func testDeployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}},
			},
		},
	}
}

// TestDeploymentDefaultsScaleAndGeneration: upstream's defaults, the
// scale subresource (autoscaling/v1 Scale) and the generation bump.
func TestDeploymentDefaultsScaleAndGeneration(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	d, err := ts.client.AppsV1().Deployments("default").Create(ctx, testDeployment("web", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ru := d.Spec.Strategy.RollingUpdate
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || ru == nil || ru.MaxSurge.String() != "25%" || ru.MaxUnavailable.String() != "25%" ||
		*d.Spec.RevisionHistoryLimit != 10 || *d.Spec.ProgressDeadlineSeconds != 600 || d.Generation != 1 {
		t.Errorf("defaults: strategy %+v, revisionHistoryLimit %d, progressDeadlineSeconds %d, generation %d; want RollingUpdate 25%%/25%%, 10, 600, 1",
			d.Spec.Strategy, *d.Spec.RevisionHistoryLimit, *d.Spec.ProgressDeadlineSeconds, d.Generation)
	}
	sc, err := ts.client.AppsV1().Deployments("default").GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 3 || sc.Status.Selector != "app=web" {
		t.Errorf("scale: replicas %d selector %q, want 3 and app=web", sc.Spec.Replicas, sc.Status.Selector)
	}
	if _, err := ts.client.AppsV1().Deployments("default").Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatal(err)
	}
	got, err := ts.client.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if *got.Spec.Replicas != 5 || got.Generation != 2 {
		t.Errorf("after scaling to 5: replicas %d generation %d, want 5 and 2", *got.Spec.Replicas, got.Generation)
	}
	sc.Spec.Replicas, sc.ResourceVersion = -1, ""
	_, err = ts.client.AppsV1().Deployments("default").UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "spec.replicas: Invalid value: -1: must be greater than or equal to 0") {
		t.Errorf("scale to -1: %v, want upstream's Invalid", err)
	}
}

// TestWorkloadInformersSync: client-go informers on deployments and on
// endpointslices sync through WatchList (one watch with
// sendInitialEvents=true each, no list): the objects there before they
// started are in their stores as soon as they have synced, and objects
// made afterwards arrive on the same watch.
func TestWorkloadInformersSync(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ts := startServer(t)
	if _, err := ts.client.AppsV1().Deployments("default").Create(ctx, testDeployment("before", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.client.DiscoveryV1().EndpointSlices("default").Create(ctx, testEndpointSlice("before-abc"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	requests := map[string]int{} // "watchlist deployments", "list endpointslices", …
	cfg := ts.restConfig()
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			kind, q := "list ", r.URL.Query()
			if q.Get("watch") == "true" {
				kind = "watch "
				if q.Get("sendInitialEvents") == "true" && q.Get("resourceVersionMatch") == "NotOlderThan" {
					kind = "watchlist "
				}
			}
			mu.Lock()
			requests[kind+path.Base(r.URL.Path)]++
			mu.Unlock()
			return rt.RoundTrip(r)
		})
	}
	factory := informers.NewSharedInformerFactory(kubernetes.NewForConfigOrDie(cfg), 0)
	deployments := factory.Apps().V1().Deployments()
	slices := factory.Discovery().V1().EndpointSlices()
	dInf, sInf := deployments.Informer(), slices.Informer()
	factory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, waitTimeout)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), dInf.HasSynced, sInf.HasSynced) {
		t.Fatalf("informers did not sync within %v", waitTimeout)
	}
	mu.Lock()
	for _, resource := range []string{"deployments", "endpointslices"} {
		if requests["watchlist "+resource] == 0 || requests["list "+resource] != 0 {
			t.Errorf("%s: %d WatchList and %d list requests, want WatchList and no list (all requests: %v)",
				resource, requests["watchlist "+resource], requests["list "+resource], requests)
		}
	}
	mu.Unlock()
	if _, err := deployments.Lister().Deployments("default").Get("before"); err != nil {
		t.Errorf("synced deployments informer: %v, want the deployment made before it started", err)
	}
	if _, err := slices.Lister().EndpointSlices("default").Get("before-abc"); err != nil {
		t.Errorf("synced endpointslices informer: %v, want the slice made before it started", err)
	}

	if _, err := ts.client.AppsV1().Deployments("default").Create(ctx, testDeployment("after", 1), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.client.DiscoveryV1().EndpointSlices("default").Create(ctx, testEndpointSlice("web-abc"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "the informers to hold the objects made after they synced", func() bool {
		_, errD := deployments.Lister().Deployments("default").Get("after")
		_, errS := slices.Lister().EndpointSlices("default").Get("web-abc")
		return errD == nil && errS == nil
	})
}

// testEndpointSlice is a slice of Service web with one endpoint on port 80.
func testEndpointSlice(name string) *discoveryv1.EndpointSlice {
	port, tcp := int32(80), corev1.ProtocolTCP
	return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: "web"}},
		AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.244.1.5"}}},
		Ports: []discoveryv1.EndpointPort{{Port: &port, Protocol: &tcp}}}
}
