package registry_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestPodTemplates: upstream's strategy: generation 1 at creation, bumped
// by a change of the template only; upstream's validation (the message is
// the real kube-apiserver's); a delete answers the template removed.
func TestPodTemplates(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	st := r.Store(registry.PodTemplates)
	pt := &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "pt"},
		Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		},
	}
	registry.PodTemplates.Default(pt, false)
	out, err := st.Create(ctx, "default", pt, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	created := out.(*corev1.PodTemplate)
	if created.Generation != 1 {
		t.Errorf("generation at creation = %d, want 1", created.Generation)
	}
	update := func(change func(*corev1.PodTemplate)) *corev1.PodTemplate {
		t.Helper()
		cur, err := st.Get(ctx, "default", "pt", nil)
		if err != nil {
			t.Fatal(err)
		}
		next := cur.DeepCopyObject().(*corev1.PodTemplate)
		change(next)
		out, _, err := st.Update(ctx, "default", "pt", replaceWith(next), nil, nil, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return out.(*corev1.PodTemplate)
	}
	if got := update(func(p *corev1.PodTemplate) { p.Labels = map[string]string{"k": "v"} }); got.Generation != 1 {
		t.Errorf("generation after a label change = %d, want 1", got.Generation)
	}
	if got := update(func(p *corev1.PodTemplate) { p.Template.Spec.Containers[0].Image = "nginx:2" }); got.Generation != 2 {
		t.Errorf("generation after a template change = %d, want 2", got.Generation)
	}
	bad := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "bad"}}
	registry.PodTemplates.Default(bad, false)
	_, err = st.Create(ctx, "default", bad, nil, registry.Options{})
	wantStatus(t, err, 422, `PodTemplate "bad" is invalid: template.spec.containers: Required value`)
	gone, deleted, err := st.Delete(ctx, "default", "pt", nil, nil)
	if err != nil || !deleted {
		t.Fatalf("delete: %v %v", deleted, err)
	}
	if p, ok := gone.(*corev1.PodTemplate); !ok || p.UID != created.UID {
		t.Errorf("delete answered %#v, want the template removed", gone)
	}
}
