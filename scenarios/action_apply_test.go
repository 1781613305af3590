package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

var podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// fakePlayer returns a player whose actions go to a fake dynamic client
// holding objs, and that client.
func fakePlayer(t *testing.T, objs ...runtime.Object) (*player, *dynamicfake.FakeDynamicClient) {
	t.Helper()
	fc := dynamicfake.NewSimpleDynamicClient(scheme.Scheme, objs...)
	p := &player{dyn: map[string]dynamic.Interface{DefaultUser: fc}, seen: map[string][]string{}}
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
			res, err := p.update(context.Background(), a, DefaultUser)
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

// patchRecorder applies strategic merge patches of pods to the tracker's
// object, as the API server does, and keeps them.
type patchRecorder struct {
	fc      *dynamicfake.FakeDynamicClient
	patches []string
	types   []types.PatchType
}

func (r *patchRecorder) react(a clienttesting.Action) (bool, runtime.Object, error) {
	pa := a.(clienttesting.PatchAction)
	r.patches = append(r.patches, string(pa.GetPatch()))
	r.types = append(r.types, pa.GetPatchType())
	cur, err := r.fc.Tracker().Get(podsGVR, pa.GetNamespace(), pa.GetName())
	if err != nil {
		return true, nil, err
	}
	data, err := json.Marshal(cur)
	if err != nil {
		return true, nil, err
	}
	patched, err := strategicpatch.StrategicMergePatch(data, pa.GetPatch(), &corev1.Pod{})
	if err != nil {
		return true, nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(patched); err != nil {
		return true, nil, err
	}
	return true, u, r.fc.Tracker().Update(podsGVR, u, pa.GetNamespace())
}

// TestApplyPatchesExisting: applying a manifest to a pod the scheduler
// and the kubelet have written since sends a strategic merge patch with
// only the manifest's change (no resourceVersion, nothing of theirs), and
// a second apply of the same manifest sends nothing.
func TestApplyPatchesExisting(t *testing.T) {
	v1 := mustUnstructured(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"containers":[{"name":"web","image":"nginx"}]}}`)
	applied, err := appliedConfiguration(v1)
	if err != nil {
		t.Fatal(err)
	}
	cur := mustUnstructured(t, webPod)
	cur.SetAnnotations(map[string]string{corev1.LastAppliedConfigAnnotation: string(applied)})
	p, fc := fakePlayer(t, cur)
	rec := &patchRecorder{fc: fc}
	fc.PrependReactor("patch", "pods", rec.react)
	conflictOnce(fc, "patch")

	v2 := v1.DeepCopy()
	v2.SetLabels(map[string]string{"app": "web", "tier": "front"})
	res, err := p.apply(context.Background(), &ApplyAction{Objects: []*unstructured.Unstructured{v2}}, DefaultUser)
	if err != nil || res.Status != 200 || res.Message != "Pod default/web configured" {
		t.Fatalf("apply: status %d message %q err %v; want 200, configured", res.Status, res.Message, err)
	}
	if got, want := verbs(fc), "get patch get patch"; got != want {
		t.Errorf("requests %q, want %q (a patch, read again after its 409)", got, want)
	}
	if len(rec.patches) != 1 || rec.types[0] != types.StrategicMergePatchType {
		t.Fatalf("patches %q of types %v, want one strategic merge patch", rec.patches, rec.types)
	}
	patch := rec.patches[0]
	for _, unwanted := range []string{"resourceVersion", "nodeName", "status", "phase"} {
		if strings.Contains(patch, unwanted) {
			t.Errorf("patch %s has %q: it must leave what others wrote alone", patch, unwanted)
		}
	}
	if !strings.Contains(patch, `"tier":"front"`) {
		t.Errorf("patch %s lacks the new label", patch)
	}
	got, err := fc.Tracker().Get(podsGVR, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	pod := got.(*unstructured.Unstructured)
	if node, _, _ := unstructured.NestedString(pod.Object, "spec", "nodeName"); node != "node-1" || pod.GetLabels()["tier"] != "front" {
		t.Errorf("after apply: nodeName %q, labels %v; want node-1 kept and tier=front", node, pod.GetLabels())
	}

	fc.ClearActions()
	res, err = p.apply(context.Background(), &ApplyAction{Objects: []*unstructured.Unstructured{v2.DeepCopy()}}, DefaultUser)
	if err != nil || res.Message != "Pod default/web unchanged" || verbs(fc) != "get" {
		t.Errorf("second apply: message %q err %v requests %q; want unchanged after one read", res.Message, err, verbs(fc))
	}
}

// TestApplyCreatesWithLastApplied: an object that does not exist is
// created with the manifest, as JSON, in the last-applied-configuration
// annotation (as kubectl apply writes it: with an annotations field, and
// a line break at the end).
func TestApplyCreatesWithLastApplied(t *testing.T) {
	p, fc := fakePlayer(t)
	m := mustUnstructured(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","labels":null},"spec":{"containers":[{"name":"web","image":"nginx"}]}}`)
	res, err := p.apply(context.Background(), &ApplyAction{Objects: []*unstructured.Unstructured{m}}, DefaultUser)
	if err != nil || res.Status != 201 || res.Message != "Pod default/web created" {
		t.Fatalf("apply: status %d message %q err %v; want 201 created", res.Status, res.Message, err)
	}
	if got, want := verbs(fc), "get create"; got != want {
		t.Errorf("requests %q, want %q", got, want)
	}
	got, err := fc.Tracker().Get(podsGVR, "default", "web")
	if err != nil {
		t.Fatal(err)
	}
	pod := got.(*unstructured.Unstructured)
	last := pod.GetAnnotations()[corev1.LastAppliedConfigAnnotation]
	want := `{"apiVersion":"v1","kind":"Pod","metadata":{"annotations":{},"labels":null,"name":"web","namespace":"default"},"spec":{"containers":[{"image":"nginx","name":"web"}]}}` + "\n"
	if last != want {
		t.Errorf("last-applied-configuration\n got %s\nwant %s", last, want)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(pod.Object, "metadata", "labels"); found {
		t.Errorf("the created pod has metadata.labels: null, want nulls pruned")
	}
}
