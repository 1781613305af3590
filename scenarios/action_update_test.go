package scenarios

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestUpdateRetriesOnlyWithoutAVersion(t *testing.T) {
	for _, tc := range []struct {
		rv         string
		wantVerbs  string
		wantStatus int
	}{
		{"current", "get update get update", 200},
		{"stale", "get update", 409},
		{"3", "get update", 409},
	} {
		t.Run(tc.rv, func(t *testing.T) {
			p, fc := fakePlayer(t, mustUnstructured(t, webPod))
			conflictOnce(fc, "update")
			a := &UpdateAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}, Labels: map[string]string{"tier": "front"}, ResourceVersion: tc.rv}
			res, err := a.run(context.Background(), p, DefaultUser)
			if got := verbs(fc); got != tc.wantVerbs {
				t.Errorf("requests %q, want %q", got, tc.wantVerbs)
			}
			if res.Status != tc.wantStatus {
				t.Errorf("status %d (err %v), want %d", res.Status, err, tc.wantStatus)
			}
			if tc.wantStatus == 200 && (err != nil || !strings.Contains(res.Message, "read the object again")) {
				t.Errorf("err %v, message %q: want success that says it retried", err, res.Message)
			}
			if tc.wantStatus == 409 && !apierrors.IsConflict(err) {
				t.Errorf("err %v, want the 409 itself", err)
			}
		})
	}
}

func TestParseUpdate(t *testing.T) {
	web := ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}
	checkParse(t, parseUpdate, []parseCase[actionRunner]{
		{name: "defaults", key: "update", src: "{kind: Pod, name: web, labels: {tier: front}}",
			want: &UpdateAction{Object: web, Labels: map[string]string{"tier": "front"}, ResourceVersion: "current"}},
		{name: "stale with annotations", key: "update", src: "{kind: Pod, name: web, annotations: {a: b}, resourceVersion: stale}",
			want: &UpdateAction{Object: web, Annotations: map[string]string{"a": "b"}, ResourceVersion: "stale"}},
		{name: "a number, cluster-scoped", key: "update", src: "{kind: Node, name: node-1, resourceVersion: 12}",
			want: &UpdateAction{Object: ObjectSpec{Kind: "Node", Name: "node-1"}, ResourceVersion: "12"}},
		{name: "no kind", key: "update", src: "{name: web}", wantErr: `1:1: update: missing field "kind"`},
		{name: "no name", key: "update", src: "{kind: Pod}", wantErr: `1:1: update: missing field "name"`},
		{name: "namespace of a cluster kind", key: "update", src: "{kind: Node, name: n1, namespace: x}",
			wantErr: `1:24: update.namespace: Node is not namespaced`},
		{name: "negative version", key: "update", src: "{kind: Pod, name: web, resourceVersion: -1}",
			wantErr: `1:41: update.resourceVersion: "-1" is not current, stale or a number`},
		{name: "labels a list", key: "update", src: "{kind: Pod, name: web, labels: [a]}",
			wantErr: `1:32: update.labels: expected a mapping, got a list`},
		{name: "label without value", key: "update", src: "{kind: Pod, name: web, labels: {a: }}",
			wantErr: `1:36: update.labels.a: expected a string, got nothing`},
	})
}

func TestUpdateChanged(t *testing.T) {
	p, _ := fakePlayer(t)
	cur := mustUnstructured(t, webPod)
	p.remember(cur)
	next := cur.DeepCopy()
	next.SetResourceVersion("9")
	p.remember(next)
	for _, tc := range []struct {
		rv, wantRV string
	}{
		{"current", "9"},
		{"stale", "7"},
		{"42", "42"},
	} {
		a := &UpdateAction{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}, Labels: map[string]string{"tier": "front"}, Annotations: map[string]string{"a": "b"}, ResourceVersion: tc.rv}
		got := a.changed(p, next)
		if got.GetResourceVersion() != tc.wantRV {
			t.Errorf("resourceVersion %s: sent %s, want %s", tc.rv, got.GetResourceVersion(), tc.wantRV)
		}
		if l := got.GetLabels(); l["app"] != "web" || l["tier"] != "front" || got.GetAnnotations()["a"] != "b" {
			t.Errorf("resourceVersion %s: labels %v annotations %v, want app=web kept, tier=front and a=b added", tc.rv, l, got.GetAnnotations())
		}
		if next.GetLabels()["tier"] != "" {
			t.Fatalf("changed modified the object it was given")
		}
	}
}
