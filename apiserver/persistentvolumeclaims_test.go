package apiserver_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// testPVC is a claim of size, ReadWriteOnce.
func testPVC(name, size string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
		},
	}
}

// TestPersistentVolumeClaims: a new claim is Pending whatever status it
// was sent with, with volumeMode Filesystem; its status changes through
// the status subresource only (which keeps the spec); its dataSource is
// copied to dataSourceRef; the spec of an unbound claim is immutable
// (kube-apiserver v1.37.2's message); the table's columns; a delete
// answers the claim.
func TestPersistentVolumeClaims(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	c := ts.client.CoreV1().PersistentVolumeClaims("default")
	in := testPVC("data", "1Gi")
	in.Status.Phase = corev1.ClaimBound
	pvc, err := c.Create(ctx, in, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pvc.Status.Phase != corev1.ClaimPending || pvc.Spec.VolumeMode == nil || *pvc.Spec.VolumeMode != corev1.PersistentVolumeFilesystem {
		t.Errorf("created: phase %q volumeMode %v, want Pending and Filesystem", pvc.Status.Phase, pvc.Spec.VolumeMode)
	}
	_, err = c.Patch(ctx, "data", types.MergePatchType, []byte(`{"spec":{"accessModes":["ReadWriteMany"]}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.HasPrefix(err.Error(), `PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims`) {
		t.Errorf("changed accessModes: %v, want upstream's Forbidden", err)
	}
	bound, err := c.Patch(ctx, "data", types.MergePatchType,
		[]byte(`{"spec":{"volumeName":"ignored"},"status":{"phase":"Bound","accessModes":["ReadWriteOnce"],"capacity":{"storage":"1Gi"}}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if bound.Status.Phase != corev1.ClaimBound || bound.Spec.VolumeName != "" {
		t.Errorf("after the status patch: phase %q volumeName %q, want Bound and the spec kept", bound.Status.Phase, bound.Spec.VolumeName)
	}
	if got, err := c.Patch(ctx, "data", types.MergePatchType, []byte(`{"metadata":{"labels":{"a":"b"}},"status":{"phase":"Lost"}}`), metav1.PatchOptions{}); err != nil || got.Status.Phase != corev1.ClaimBound {
		t.Errorf("a status sent to the claim itself: %v, phase %q, want it ignored", err, got.Status.Phase)
	}

	src := testPVC("clone", "1Gi")
	src.Spec.DataSource = &corev1.TypedLocalObjectReference{Kind: "PersistentVolumeClaim", Name: "data"}
	clone, err := c.Create(ctx, src, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ref := clone.Spec.DataSourceRef; ref == nil || ref.Kind != "PersistentVolumeClaim" || ref.Name != "data" {
		t.Errorf("dataSourceRef %+v, want the dataSource copied", ref)
	}

	bad := testPVC("bad", "1Gi")
	bad.Spec.AccessModes = nil
	_, err = c.Create(ctx, bad, metav1.CreateOptions{})
	wantInvalid(t, "no access modes", err, `PersistentVolumeClaim "bad" is invalid: spec.accessModes: Required value: at least 1 access mode is required`)

	cols, rows := mustTable(t, ts, "/api/v1/namespaces/default/persistentvolumeclaims/data")
	want := []string{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass", "Age", "VolumeMode"}
	if !slices.Equal(cols, want) {
		t.Errorf("columns %q, want %q", cols, want)
	}
	if len(rows) != 1 || !slices.Equal(slices.Delete(rows[0], 7, 8), []string{"data", "Bound", "", "", "", "", "<unset>", "Filesystem"}) {
		t.Errorf("rows %q, want data Bound with no volume, <unset> class, Filesystem", rows)
	}

	if code, body := ts.do(t, "DELETE", "/api/v1/namespaces/default/persistentvolumeclaims/clone", "", ""); code != 200 || !strings.Contains(body, `"kind":"PersistentVolumeClaim"`) {
		t.Errorf("delete: %d %.200s, want the claim answered", code, body)
	}
}
