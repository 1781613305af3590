package controllers

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestAPIPathParts(t *testing.T) {
	for _, c := range []struct{ path, res, sub, ns, name string }{
		{"/api/v1/namespaces/default/pods", "pods", "", "default", ""},
		{"/api/v1/namespaces/default/pods/web-1/status", "pods", "status", "default", "web-1"},
		{"/apis/apps/v1/namespaces/default/replicasets/web-5d9c", "replicasets", "", "default", "web-5d9c"},
		{"/api/v1/nodes/node-1", "nodes", "", "", "node-1"},
		{"/api/v1/namespaces/team-a", "namespaces", "", "", "team-a"},
		{"/api/v1/namespaces/team-a/finalize", "namespaces", "finalize", "", "team-a"},
	} {
		res, sub, ns, name := apiPathParts(c.path, "")
		if res != c.res || sub != c.sub || ns != c.ns || name != c.name {
			t.Errorf("%s: got %q %q %q %q, want %q %q %q %q", c.path, res, sub, ns, name, c.res, c.sub, c.ns, c.name)
		}
	}
}

// fixedAnswer is a RoundTripper that answers every request with code.
type fixedAnswer int

func (a fixedAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: int(a), Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

// TestSyncRecordReportsEachCreation: a create noted as made is reported
// at once (Created, with the writes answered so far), and the whole
// action when the sync ends, with every write and its status code;
// reads are not writes.
func TestSyncRecordReportsEachCreation(t *testing.T) {
	var got []Action
	cfg := &Config{Observer: func(a Action) { got = append(got, a) }}
	var tr eventTriggers
	tr.note("default/web", Trigger{Verb: "add", Object: ObjectRef{Kind: "ReplicaSet", Namespace: "default", Name: "web"}})
	rt := writeRecorder{fixedAnswer(201)}
	sync := cfg.observedSync("replicaset-controller", "replicaset", &tr, namespacedObject("apps/v1", "ReplicaSet"), func(ctx context.Context, key string) error {
		decide(ctx, Decision{Reason: DecisionTooFewReplicas, Want: 1, Have: 0, Count: 1})
		get, _ := http.NewRequestWithContext(ctx, http.MethodGet, "https://x/api/v1/namespaces/default/pods", nil)
		_, _ = rt.RoundTrip(get)
		wctx := writeSlot(ctx)
		post, _ := http.NewRequestWithContext(wctx, http.MethodPost, "https://x/api/v1/namespaces/default/pods", nil)
		_, _ = rt.RoundTrip(post)
		noteCreated(wctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-abcde", UID: "u1"}})
		return nil
	})
	if err := sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("%d actions reported, want 2 (the creation, then the sync): %+v", len(got), got)
	}
	early, whole := got[0], got[1]
	if early.Created == nil || early.Created.Name != "web-abcde" || early.Created.UID != "u1" || early.Created.Code != 201 {
		t.Errorf("early report's Created = %+v, want web-abcde u1 201", early.Created)
	}
	if whole.Created != nil || len(whole.Calls) != 1 || whole.Writes[0] != "POST pods default/web-abcde → 201" {
		t.Errorf("whole action: created %v, calls %+v, writes %q", whole.Created, whole.Calls, whole.Writes)
	}
	if whole.Trigger != "add ReplicaSet default/web" || whole.Object.Name != "web" || whole.Key != "default/web" {
		t.Errorf("whole action: trigger %q, object %+v, key %q", whole.Trigger, whole.Object, whole.Key)
	}
}

// TestObserveStampsInstance: every action reported carries the manager's
// identity, so that one of several controller managers can be told.
func TestObserveStampsInstance(t *testing.T) {
	var got []Action
	cfg := &Config{Identity: "kcm-a_1", Observer: func(a Action) { got = append(got, a) }}
	sync := cfg.observedSync("replicaset-controller", "replicaset", &eventTriggers{}, namespacedObject("apps/v1", "ReplicaSet"),
		func(ctx context.Context, _ string) error {
			decide(ctx, Decision{Reason: DecisionTooFewReplicas, Want: 2, Have: 1, Count: 1})
			return nil
		})
	if err := sync(context.Background(), "default/web"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Instance != "kcm-a_1" {
		t.Fatalf("actions %+v: want one with Instance kcm-a_1", got)
	}
}
