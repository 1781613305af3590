package controllers

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// TestEndpointSliceSyncEvidence: the writes of the Reconciler reach the
// sync's record through the transport, with their status codes; the
// decision counts the slices written and the endpoints they list; a
// slice created is reported as soon as the sync has decided, with the
// decision's figures. Filling the placeholder is one update: one slice
// written.
func TestEndpointSliceSyncEvidence(t *testing.T) {
	var got []Action
	cfg := &Config{Observer: func(a Action) { got = append(got, a) }}
	c := newWireSliceController(t)
	svc := testService(intstr.FromInt32(80))
	pods := []*corev1.Pod{testEndpointPod("a", "10.244.1.1", 80, true)}
	var existing []*discoveryv1.EndpointSlice
	sync := cfg.observedSync(EndpointSliceControllerName, "endpoint_slice", &eventTriggers{}, namespacedObject("v1", "Service"),
		func(ctx context.Context, _ string) error { return c.reconcile(ctx, svc, pods, existing, time.Time{}) })

	if err := sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	want := Decision{Reason: ReasonEndpointSlicesChanged, Target: "web", Want: 1, Have: 1, Count: 1}
	if len(got) != 2 || got[0].Created == nil || got[1].Created != nil {
		t.Fatalf("actions %+v, want the slice's creation, then the sync", got)
	}
	for i, a := range got {
		if len(a.Decisions) != 1 || a.Decisions[0] != want {
			t.Errorf("action %d: decisions %+v, want %+v", i, a.Decisions, want)
		}
		if len(a.Writes) != 1 || a.Writes[0] != "POST endpointslices default/web-abcde → 201" {
			t.Errorf("action %d: writes %q, want the POST of web-abcde → 201", i, a.Writes)
		}
	}
	if got[0].Created.Name != "web-abcde" || got[0].Created.UID != "uid-web-abcde" {
		t.Errorf("created %+v, want web-abcde", got[0].Created)
	}

	got = nil
	placeholder := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "web-old", Namespace: "default",
		Labels:          map[string]string{discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: EndpointSliceManagedBy},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))}},
		AddressType: discoveryv1.AddressTypeIPv4, Endpoints: []discoveryv1.Endpoint{}, Ports: []discoveryv1.EndpointPort{}}
	existing = []*discoveryv1.EndpointSlice{placeholder}
	if err := sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Decisions) != 1 || got[0].Decisions[0] != want {
		t.Fatalf("filling the placeholder: actions %+v, want one with %+v", got, want)
	}
	if w := got[0].Writes; len(w) != 1 || w[0] != "PUT endpointslices default/web-old → 200" {
		t.Errorf("filling the placeholder wrote %q, want one PUT of web-old → 200", w)
	}
}

// newWireSliceController is an EndpointSliceController whose client
// sends its requests through observeWrites' transport to sliceServer;
// its listers know node-1.
func newWireSliceController(t *testing.T) *EndpointSliceController {
	t.Helper()
	client, err := kubernetes.NewForConfig(observeWrites(&rest.Config{Host: "https://api.test", Transport: sliceServer{},
		ContentConfig: rest.ContentConfig{ContentType: "application/json"}}))
	if err != nil {
		t.Fatal(err)
	}
	return sliceControllerOn(t, informers.NewSharedInformerFactory(fake.NewClientset(), 0), client, DefaultMaxEndpointsPerSlice)
}

// sliceServer answers EndpointSlice writes as the API server would: a
// create gets the name generateName+"abcde" (201), an update is taken as
// sent (200).
type sliceServer struct{}

func (sliceServer) RoundTrip(req *http.Request) (*http.Response, error) {
	var s discoveryv1.EndpointSlice
	if req.Body != nil {
		if err := json.NewDecoder(req.Body).Decode(&s); err != nil {
			return nil, err
		}
	}
	code := http.StatusOK
	if req.Method == http.MethodPost {
		code, s.Name = http.StatusCreated, s.GenerateName+"abcde"
		s.UID = types.UID("uid-" + s.Name)
	}
	body, err := json.Marshal(&s)
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(string(body))), Request: req}, nil
}
