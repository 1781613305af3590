package apiserver_test

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// testDaemonSet is a DaemonSet of pods labelled app=name on the nodes
// labelled disk=ssd.
func testDaemonSet(name string) *appsv1.DaemonSet {
	labels := map[string]string{"app": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{NodeSelector: map[string]string{"disk": "ssd"},
					Containers: []corev1.Container{{Name: name, Image: name + ":1"}}},
			},
		},
	}
}

// TestDaemonSets: upstream's defaults and template generation (the
// annotation deprecated.daemonset.template.generation, bumped by a
// template change only, and kept whatever a client sends), the
// generation, the status subresource keeping the spec, upstream's
// validation messages, and the table; each answer is kube-apiserver
// v1.37.2's to the same requests.
func TestDaemonSets(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.AppsV1().DaemonSets("default")
	const tg = appsv1.DeprecatedTemplateGeneration
	ds, err := c.Create(ctx, testDaemonSet("agent"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ru := ds.Spec.UpdateStrategy.RollingUpdate
	if ds.Generation != 1 || ds.Annotations[tg] != "1" || ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType ||
		ru == nil || ru.MaxUnavailable.String() != "1" || ru.MaxSurge.String() != "0" || *ds.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("created: generation %d annotations %v spec %+v", ds.Generation, ds.Annotations, ds.Spec)
	}
	steps := []struct {
		what, patch string
		pt          types.PatchType
		generation  int64
		templateGen string
	}{
		{"a template change", `{"spec":{"template":{"spec":{"containers":[{"name":"agent","image":"agent:2"}]}}}}`, types.StrategicMergePatchType, 2, "2"},
		{"another spec change", `{"spec":{"minReadySeconds":5}}`, types.StrategicMergePatchType, 3, "2"},
		{"the annotation removed", `[{"op":"remove","path":"/metadata/annotations"}]`, types.JSONPatchType, 3, "2"},
		{"the annotation set", `{"metadata":{"annotations":{"` + tg + `":"9"}}}`, types.MergePatchType, 3, "2"},
	}
	for _, s := range steps {
		got, err := c.Patch(ctx, "agent", s.pt, []byte(s.patch), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("%s: %v", s.what, err)
		}
		if got.Generation != s.generation || got.Annotations[tg] != s.templateGen {
			t.Errorf("after %s: generation %d template generation %q, want %d and %q", s.what, got.Generation, got.Annotations[tg], s.generation, s.templateGen)
		}
	}
	st, err := c.Patch(ctx, "agent", types.MergePatchType, []byte(`{"metadata":{"annotations":{"`+tg+`":"7"}},"spec":{"minReadySeconds":9},`+
		`"status":{"desiredNumberScheduled":3,"currentNumberScheduled":3,"numberReady":2}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if st.Status.NumberReady != 2 || st.Spec.MinReadySeconds != 5 || st.Annotations[tg] != "2" || st.Generation != 3 {
		t.Errorf("after the status patch: ready %d minReadySeconds %d template generation %q generation %d, want 2, 5, 2, 3",
			st.Status.NumberReady, st.Spec.MinReadySeconds, st.Annotations[tg], st.Generation)
	}

	_, err = c.Patch(ctx, "agent", types.StrategicMergePatchType, []byte(`{"spec":{"selector":{"matchLabels":{"app":"x"}}}}`), metav1.PatchOptions{})
	wantInvalid(t, "changed selector", err, "DaemonSet.apps \"agent\" is invalid: [spec.selector: Invalid value: {\"matchLabels\":{\"app\":\"x\"}}: field is immutable, "+
		"spec.template.metadata.labels: Invalid value: {\"app\":\"agent\"}: `selector` does not match template `labels`]")
	bad := testDaemonSet("bad")
	bad.Spec.Selector.MatchLabels = map[string]string{"app": "other"}
	bad.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	_, err = c.Create(ctx, bad, metav1.CreateOptions{})
	wantInvalid(t, "bad daemon set", err, "DaemonSet.apps \"bad\" is invalid: [spec.template.metadata.labels: Invalid value: {\"app\":\"bad\"}: `selector` does not match template `labels`, "+
		"spec.template.spec.restartPolicy: Unsupported value: \"OnFailure\": supported values: \"Always\"]")

	cols, rows := mustTable(t, ts, "/apis/apps/v1/namespaces/default/daemonsets")
	want := []string{"Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers", "Images", "Selector"}
	if !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if len(rows) != 1 || !slices.Equal(slices.Delete(rows[0], 7, 8), []string{"agent", "3", "3", "2", "0", "0", "disk=ssd", "agent", "agent:2", "app=agent"}) {
		t.Errorf("rows %q, want agent 3 3 2 0 0 disk=ssd ... agent agent:2 app=agent", rows)
	}
}
