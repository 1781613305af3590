package apiserver_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// testReplicationController is a controller of replicas pods labelled
// app=name, tier=fe, with no selector (its default is the labels).
func testReplicationController(name string, replicas int32) *corev1.ReplicationController {
	return &corev1.ReplicationController{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.ReplicationControllerSpec{
			Replicas: ptr.To(replicas),
			Template: &corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name, "tier": "fe"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: "nginx"}}},
			},
		},
	}
}

// TestReplicationControllers: upstream's defaults (selector and labels
// from the template), the scale subresource (its selector from the
// map), the status subresource keeping the spec, the generation, the
// status.replicas field selector, validation and the table, each as
// kube-apiserver v1.37.2 answered the same requests.
func TestReplicationControllers(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.CoreV1().ReplicationControllers("default")
	rc, err := c.Create(ctx, testReplicationController("web", 2), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app": "web", "tier": "fe"}
	if rc.Generation != 1 || !maps.Equal(rc.Spec.Selector, want) || !maps.Equal(rc.Labels, want) || rc.Spec.Template.Spec.Containers[0].ImagePullPolicy != corev1.PullAlways {
		t.Errorf("created: generation %d selector %v labels %v pull %q, want 1, the template's labels twice, Always",
			rc.Generation, rc.Spec.Selector, rc.Labels, rc.Spec.Template.Spec.Containers[0].ImagePullPolicy)
	}
	if _, err := c.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":4}}`), metav1.PatchOptions{}, "scale"); err != nil {
		t.Fatal(err)
	}
	sc, err := c.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Spec.Replicas != 4 || sc.Status.Selector != "app=web,tier=fe" {
		t.Errorf("scale: %d %q, want 4 and app=web,tier=fe", sc.Spec.Replicas, sc.Status.Selector)
	}
	st, err := c.Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":1},"status":{"replicas":4,"readyReplicas":3}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if st.Generation != 2 || *st.Spec.Replicas != 4 || st.Status.ReadyReplicas != 3 {
		t.Errorf("after the status patch: generation %d replicas %d ready %d, want 2, 4, 3", st.Generation, *st.Spec.Replicas, st.Status.ReadyReplicas)
	}
	list, err := c.List(ctx, metav1.ListOptions{FieldSelector: "status.replicas=4"})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("status.replicas=4: %v, %d items, want web", err, len(list.Items))
	}
	_, err = c.List(ctx, metav1.ListOptions{FieldSelector: "spec.replicas=4"})
	if !apierrors.IsBadRequest(err) || err.Error() != "field label not supported: spec.replicas" {
		t.Errorf("spec.replicas=4: %v, want upstream's 400", err)
	}

	_, err = c.Patch(ctx, "web", types.StrategicMergePatchType, []byte(`{"spec":{"selector":{"app":"x"}}}`), metav1.PatchOptions{})
	wantInvalid(t, "changed selector", err, "ReplicationController \"web\" is invalid: spec.template.metadata.labels: Invalid value: {\"app\":\"web\",\"tier\":\"fe\"}: `selector` does not match template `labels`")
	bad := testReplicationController("notemplate", 1)
	bad.Spec.Template, bad.Spec.Selector = nil, map[string]string{"app": "other"}
	_, err = c.Create(ctx, bad, metav1.CreateOptions{})
	wantInvalid(t, "no template", err, `ReplicationController "notemplate" is invalid: spec.template: Required value`)

	cols, rows := mustTable(t, ts, "/api/v1/namespaces/default/replicationcontrollers")
	if w := []string{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"}; !slices.Equal(cols, w) {
		t.Errorf("columns %q, want %q", cols, w)
	}
	if len(rows) != 1 || !slices.Equal(slices.Delete(rows[0], 4, 5), []string{"web", "4", "4", "3", "web", "nginx", "app=web,tier=fe"}) {
		t.Errorf("rows %q, want web 4 4 3 ... web nginx app=web,tier=fe", rows)
	}
}

// TestReplicationControllerDeleteOrphans: a delete without options
// leaves the controller with the garbage collector's "orphan" finalizer
// (upstream's default policy for core/v1 controllers), one in the
// background removes it at once.
func TestReplicationControllerDeleteOrphans(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.CoreV1().ReplicationControllers("default")
	for _, name := range []string{"orphans", "background"} {
		if _, err := c.Create(ctx, testReplicationController(name, 1), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, "orphans", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.Get(ctx, "orphans", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil || !slices.Equal(got.Finalizers, []string{metav1.FinalizerOrphanDependents}) {
		t.Errorf("after a delete without options: %v, finalizers %v, want it kept with the orphan finalizer", err, got.Finalizers)
	}
	if err := c.Delete(ctx, "background", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(ctx, "background", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after a background delete: %v, want it gone", err)
	}
}
