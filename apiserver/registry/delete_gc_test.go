package registry_test

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// TestDeletePropagationFinalizers: as kube-apiserver's store, a delete
// asking for orphan or foreground propagation leaves the object with a
// deletionTimestamp and the garbage collector's finalizer (orphan,
// foregroundDeletion); background (and no policy) removes it at once;
// orphanDependents=true counts as orphan. Removing the finalizer then
// removes the object.
func TestDeletePropagationFinalizers(t *testing.T) {
	ctx := context.Background()
	policy := func(p metav1.DeletionPropagation) *metav1.DeleteOptions {
		return &metav1.DeleteOptions{PropagationPolicy: &p}
	}
	tests := []struct {
		name      string
		opts      *metav1.DeleteOptions
		finalizer string // "" for removed at once
	}{
		{"no policy", &metav1.DeleteOptions{}, ""},
		{"background", policy(metav1.DeletePropagationBackground), ""},
		{"foreground", policy(metav1.DeletePropagationForeground), metav1.FinalizerDeleteDependents},
		{"orphan", policy(metav1.DeletePropagationOrphan), metav1.FinalizerOrphanDependents},
		{"orphanDependents=true", &metav1.DeleteOptions{OrphanDependents: ptr.To(true)}, metav1.FinalizerOrphanDependents},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRegistry(t)
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}
			if _, err := r.ConfigMaps.Create(ctx, "default", cm, nil, registry.Options{}); err != nil {
				t.Fatal(err)
			}
			out, deleted, err := r.ConfigMaps.Delete(ctx, "default", "owner", nil, tt.opts)
			if err != nil {
				t.Fatalf("delete: %v", err)
			}
			if tt.finalizer == "" {
				if !deleted {
					t.Fatalf("deleted=false, want removed at once")
				}
				return
			}
			got := out.(*corev1.ConfigMap)
			if deleted || got.DeletionTimestamp == nil || !slices.Equal(got.Finalizers, []string{tt.finalizer}) {
				t.Fatalf("deleted=%v deletionTimestamp %v finalizers %v, want it kept with [%s]", deleted, got.DeletionTimestamp, got.Finalizers, tt.finalizer)
			}
			_, _, err = r.ConfigMaps.Update(ctx, "default", "owner", func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
				c := cur.(*corev1.ConfigMap)
				c.Finalizers = nil
				return c, nil
			}, nil, nil, registry.Options{})
			if err != nil {
				t.Fatalf("remove the finalizer: %v", err)
			}
			if _, err := r.ConfigMaps.Get(ctx, "default", "owner", nil); !apierrors.IsNotFound(err) {
				t.Errorf("get after the finalizer went: %v, want NotFound", err)
			}
		})
	}
}
