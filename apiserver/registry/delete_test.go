package registry_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// writeStatusOnce returns a delete validation that, the first time it sees
// the pod already marked for deletion (that is, between the graceful
// update and the removal of the key), writes the pod's status as a kubelet
// would. The write is made from inside the delete, so it always lands in
// that window.
func writeStatusOnce(t *testing.T, r *registry.Registry) (registry.ValidateObjectFunc, *bool) {
	t.Helper()
	wrote := false
	return func(ctx context.Context, obj runtime.Object) error {
		if wrote || obj.(*corev1.Pod).DeletionTimestamp == nil {
			return nil
		}
		wrote = true
		_, _, err := r.PodStatus.Update(ctx, "default", obj.(*corev1.Pod).Name, func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
			p := cur.(*corev1.Pod)
			p.Status.Message = "kubelet was here"
			return p, nil
		}, nil, nil, registry.Options{})
		if err != nil {
			t.Errorf("status write inside the delete: %v", err)
		}
		return nil
	}, &wrote
}

// TestDeleteZeroGraceRacesAStatusWrite: a pod bound to a node is deleted
// with grace period 0, which kube-apiserver does in two writes (stamp
// deletionTimestamp, then remove the key). A status write between the two
// must not fail a delete that named no resourceVersion; a delete that did
// name one still fails, as upstream carries it forward to the first write.
func TestDeleteZeroGraceRacesAStatusWrite(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		precond func(p *corev1.Pod) *metav1.Preconditions
		want409 bool
	}{
		{"no precondition", func(*corev1.Pod) *metav1.Preconditions { return nil }, false},
		{"uid precondition", func(p *corev1.Pod) *metav1.Preconditions { return &metav1.Preconditions{UID: ptr.To(p.UID)} }, false},
		{"resourceVersion precondition", func(p *corev1.Pod) *metav1.Preconditions {
			return &metav1.Preconditions{ResourceVersion: ptr.To(p.ResourceVersion)}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRegistry(t)
			mustCreatePod(t, r, newPod("nginx"))
			bind(t, r, "nginx", "node-1")
			p := getPod(t, r, "nginx")
			validate, wrote := writeStatusOnce(t, r)
			opts := &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), Preconditions: tc.precond(p)}
			_, deleted, err := r.Pods.Delete(ctx, "default", "nginx", validate, opts)
			if !*wrote {
				t.Fatal("the status write never ran between the two writes of the delete")
			}
			if tc.want409 {
				if !apierrors.IsConflict(err) || deleted {
					t.Fatalf("delete: deleted=%v err=%v, want 409 Conflict", deleted, err)
				}
				return
			}
			if err != nil || !deleted {
				t.Fatalf("delete: deleted=%v err=%v, want deleted", deleted, err)
			}
			if _, err := r.Pods.Get(ctx, "default", "nginx", nil); !apierrors.IsNotFound(err) {
				t.Errorf("get after delete: err = %v, want not found", err)
			}
		})
	}
}

// TestDeleteZeroGraceRacesAnotherDelete: between the two writes of a
// delete with grace period 0, someone else removes the pod (the kubelet
// deletes a pod whose deletionTimestamp it sees). The delete has happened:
// it answers success with the object it marked, not 404, as upstream's
// store ignores NotFound once its request stamped the deletion.
func TestDeleteZeroGraceRacesAnotherDelete(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	mustCreatePod(t, r, newPod("nginx"))
	bind(t, r, "nginx", "node-1")
	removed := false
	validate := func(ctx context.Context, obj runtime.Object) error {
		if removed || obj.(*corev1.Pod).DeletionTimestamp == nil {
			return nil
		}
		removed = true
		if _, _, err := r.Pods.Delete(ctx, "default", "nginx", nil, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
			t.Errorf("the other delete, inside the first: %v", err)
		}
		return nil
	}
	out, deleted, err := r.Pods.Delete(ctx, "default", "nginx", validate, &metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)})
	if !removed {
		t.Fatal("the other delete never ran between the two writes")
	}
	if err != nil || !deleted {
		t.Fatalf("delete: deleted=%v err=%v, want deleted", deleted, err)
	}
	// Pods answer the object removed (upstream's ReturnDeletedObject): as
	// this request's first write left it, with a grace period of 0.
	if p, ok := out.(*corev1.Pod); !ok || p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != 0 {
		t.Errorf("delete answered %#v, want the pod with deletionGracePeriodSeconds 0", out)
	}
}
