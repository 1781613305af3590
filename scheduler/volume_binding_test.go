package scheduler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
)

// TestVolumeBindingPreFilter: a pod without claims is skipped; a missing
// or deleted claim rejects it with upstream's error; an unbound claim
// makes it wait; bound claims let it through.
func TestVolumeBindingPreFilter(t *testing.T) {
	now := metav1.Now()
	claims := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range []*corev1.PersistentVolumeClaim{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pending"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "bound"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-1"},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "going", DeletionTimestamp: &now, Finalizers: []string{"kubernetes.io/pvc-protection"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-2"}, Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0-scratch"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv-3"},
			Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}},
	} {
		if err := claims.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	pl := &VolumeBinding{claims: corelisters.NewPersistentVolumeClaimLister(claims)}
	claim := func(name string) corev1.Volume {
		return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: name}}}
	}
	ephemeral := corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}}
	empty := corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	tests := []struct {
		name    string
		volumes []corev1.Volume
		code    Code
		reason  string
	}{
		{"no claims", []corev1.Volume{empty}, Skip, ""},
		{"bound", []corev1.Volume{claim("bound"), empty}, Success, ""},
		{"bound ephemeral", []corev1.Volume{ephemeral}, Success, ""},
		{"missing", []corev1.Volume{claim("bound"), claim("data")}, UnschedulableAndUnresolvable, `persistentvolumeclaim "data" not found`},
		{"being deleted", []corev1.Volume{claim("going")}, UnschedulableAndUnresolvable, `persistentvolumeclaim "going" is being deleted`},
		{"unbound", []corev1.Volume{claim("pending"), claim("bound")}, UnschedulableAndUnresolvable, ErrReasonUnboundImmediatePVC},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-0"}, Spec: corev1.PodSpec{Volumes: tt.volumes}}
			st := pl.PreFilter(context.Background(), nil, pod)
			if st.Code() != tt.code || st.Message() != tt.reason {
				t.Errorf("PreFilter = %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.reason)
			}
		})
	}
}
