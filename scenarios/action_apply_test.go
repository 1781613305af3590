package scenarios

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

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
	res, err := (&ApplyAction{Objects: []*unstructured.Unstructured{v2}}).run(context.Background(), p, DefaultUser)
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
	res, err = (&ApplyAction{Objects: []*unstructured.Unstructured{v2.DeepCopy()}}).run(context.Background(), p, DefaultUser)
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
	res, err := (&ApplyAction{Objects: []*unstructured.Unstructured{m}}).run(context.Background(), p, DefaultUser)
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
