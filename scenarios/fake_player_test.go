package scenarios

import (
	"context"
	"errors"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// fakePlayer returns a player whose actions go to a fake dynamic client
// holding objs, and that client.
func fakePlayer(t *testing.T, objs ...runtime.Object) (*player, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	fc := dynamicfake.NewSimpleDynamicClient(scheme.Scheme, objs...)
	p := &player{dynamicClients: map[string]dynamic.Interface{DefaultUser: fc}, versionsSeen: map[string][]string{}}
	return p, fc
}

// mustUnstructured decodes a JSON object.
func mustUnstructured(t *testing.T, s string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(s)); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return u
}

// verbs lists the verbs of the client's actions, in order.
func verbs(fc *dynamicfake.FakeDynamicClient) string {
	var out []string
	for _, a := range fc.Actions() {
		out = append(out, a.GetVerb())
	}
	return strings.Join(out, " ")
}

// conflictOnce makes the first call of verb on pods a 409 Conflict; later
// calls go to the fake's object tracker (or the next reactor).
func conflictOnce(fc *dynamicfake.FakeDynamicClient, verb string) {
	done := false
	fc.PrependReactor(verb, "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if done {
			return false, nil, nil
		}
		done = true
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "pods"}, "web", errors.New("the object has been modified; please apply your changes to the latest version and try again"))
	})
}

const webPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","resourceVersion":"7","labels":{"app":"web"}},
	"spec":{"nodeName":"node-1","containers":[{"name":"web","image":"nginx"}]},"status":{"phase":"Running"}}`

// probePlayer returns a player whose expectations read a fake clientset
// holding objs.
func probePlayer(t *testing.T, objs ...runtime.Object) *player {
	t.Helper()
	return &player{admin: kubefake.NewClientset(objs...), changed: make(chan struct{}),
		dynamicClients: map[string]dynamic.Interface{}, reviewClients: map[string]kubernetes.Interface{}}
}

// probeCase is a prober, what the API holds, and what probe must say.
type probeCase struct {
	name    string
	e       prober
	objs    []runtime.Object
	wantOK  bool
	wantGot string // when !wantOK
}

// checkProbes probes each case once against its objects.
func checkProbes(t *testing.T, cases []probeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := probePlayer(t, tc.objs...)
			got, ok, _ := tc.e.probe(context.Background(), p)
			if ok != tc.wantOK || (!ok && got != tc.wantGot) {
				t.Errorf("%s: probe = %q, %v; want %q, %v", tc.e, got, ok, tc.wantGot, tc.wantOK)
			}
		})
	}
}
