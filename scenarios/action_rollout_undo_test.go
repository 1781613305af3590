package scenarios

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// undoFixture is a Deployment web at revision 2 (image v2, made with
// kubectl apply) with its two ReplicaSets, and a ReplicaSet of another
// owner that matches its selector.
func undoFixture(paused bool) []runtime.Object {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", UID: types.UID("d-1"),
			Annotations: map[string]string{revisionAnnotation: "2", corev1.LastAppliedConfigAnnotation: "{}"}},
		Spec: appsv1.DeploymentSpec{Paused: paused, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "v2"}}}}},
	}
	owned := func(rs *appsv1.ReplicaSet, uid string) *appsv1.ReplicaSet {
		yes := true
		rs.Namespace, rs.Labels = "default", map[string]string{"app": "web"}
		rs.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: types.UID(uid), Controller: &yes}}
		return rs
	}
	return []runtime.Object{d, owned(rsOf("web-a", "1", "v1"), "d-1"), owned(rsOf("web-b", "2", "v2"), "d-1"), owned(rsOf("web-z", "9", "v9"), "other")}
}

// TestRolloutUndoRun: the undo reads the Deployment and its ReplicaSets
// and patches the Deployment back to revision 1's template, warning of
// kubectl apply; a paused Deployment and a revision that is the current
// template send no patch.
func TestRolloutUndoRun(t *testing.T) {
	p, fc := fakePlayer(t, undoFixture(false)...)
	res, err := (&RolloutUndoAction{Deployment: webDeployment}).run(context.Background(), p, DefaultUser)
	if err != nil {
		t.Fatalf("undo: %v", err)
	}
	if got := verbs(fc); got != "get list patch" {
		t.Errorf("requests %q, want get list patch", got)
	}
	for _, want := range []string{"Warning: resource deployments/web was previously managed with 'kubectl apply'",
		"revision 1, to go back to: ReplicaSet web-a (v1)", "deployment.apps/web rolled back"} {
		if !strings.Contains(strings.Join(res.HTTP, "\n"), want) {
			t.Errorf("transcript %q lacks %q", res.HTTP, want)
		}
	}
	d, err := p.getDeployment(context.Background(), webDeployment, DefaultUser)
	if err != nil {
		t.Fatal(err)
	}
	if img := d.Spec.Template.Spec.Containers[0].Image; img != "v1" || d.Spec.Template.Labels[appsv1.DefaultDeploymentUniqueLabelKey] != "" {
		t.Errorf("template image %s, labels %v: want v1 without pod-template-hash", img, d.Spec.Template.Labels)
	}
	if d.Annotations[revisionAnnotation] != "2" || d.Annotations["kubernetes.io/change-cause"] != "set v1" {
		t.Errorf("annotations %v: want the revision kept and the ReplicaSet's change-cause", d.Annotations)
	}

	p, fc = fakePlayer(t, undoFixture(true)...)
	if _, err := (&RolloutUndoAction{Deployment: webDeployment}).run(context.Background(), p, DefaultUser); err == nil ||
		!strings.Contains(err.Error(), "you cannot rollback a paused deployment") {
		t.Errorf("paused: %v, want kubectl's refusal", err)
	}
	if got := verbs(fc); got != "get list" {
		t.Errorf("paused: requests %q, want get list", got)
	}

	p, fc = fakePlayer(t, undoFixture(false)...)
	res, err = (&RolloutUndoAction{Deployment: webDeployment, ToRevision: 2}).run(context.Background(), p, DefaultUser)
	if err != nil || !strings.Contains(strings.Join(res.HTTP, "\n"), "skipped rollback (current template already matches revision 2)") {
		t.Errorf("to the current revision: %v, transcript %q; want skipped", err, res.HTTP)
	}
	if got := verbs(fc); got != "get list" {
		t.Errorf("skipped: requests %q, want get list", got)
	}
}
