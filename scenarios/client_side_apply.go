package scenarios

import (
	"context"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"
)

// applyOne applies obj as client-side `kubectl apply` does. An object
// that does not exist is created with the
// kubectl.kubernetes.io/last-applied-configuration annotation (the
// manifest as JSON). One that exists is patched, never replaced: a
// three-way strategic merge patch (a JSON merge patch for kinds without Go
// types) from the annotation (what was applied last), the manifest and
// the object as it is, so that fields other writers set (the scheduler's
// nodeName, the kubelet's status) are left alone and no resourceVersion
// is sent unless the manifest has one. On a 409 it reads the object again
// and builds the patch anew (retry.RetryOnConflict). It returns the HTTP
// status and kubectl's word for what happened: created, configured or
// unchanged (nothing to send; the status is then the read's 200).
func (p *player) applyOne(ctx context.Context, ri dynamic.ResourceInterface, obj *unstructured.Unstructured) (int, string, error) {
	applied, err := appliedConfiguration(obj)
	if err != nil {
		return 0, "", err
	}
	cur, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		u, err := ri.Create(ctx, withLastApplied(obj, applied), metav1.CreateOptions{})
		if err != nil {
			return 0, "", err
		}
		p.remember(u)
		return http.StatusCreated, "created", nil
	}
	if err != nil {
		return 0, "", err
	}
	modified, err := withLastApplied(obj, applied).MarshalJSON()
	if err != nil {
		return 0, "", err
	}
	verb := "configured"
	reread := false
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if reread {
			fresh, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err != nil {
				return err
			}
			cur = fresh
		}
		reread = true
		p.remember(cur)
		patch, pt, err := applyPatch(obj.GroupVersionKind(), cur, modified)
		if err != nil {
			return err
		}
		if string(patch) == "{}" {
			verb = "unchanged"
			return nil
		}
		u, err := ri.Patch(ctx, obj.GetName(), pt, patch, metav1.PatchOptions{})
		p.remember(u)
		return err
	})
	if err != nil {
		return 0, "", err
	}
	return http.StatusOK, verb, nil
}

// appliedConfiguration is what kubectl apply records of obj in the
// last-applied-configuration annotation: obj as JSON, without that
// annotation (its annotations field stays, empty if need be, as kubectl
// writes it).
func appliedConfiguration(obj *unstructured.Unstructured) ([]byte, error) {
	c := obj.DeepCopy()
	annotations := map[string]string{}
	for k, v := range c.GetAnnotations() {
		if k != corev1.LastAppliedConfigAnnotation {
			annotations[k] = v
		}
	}
	c.SetAnnotations(annotations)
	return c.MarshalJSON()
}

// withLastApplied returns a copy of obj with applied as its
// last-applied-configuration annotation and without null values (kubectl
// prunes them before a create, as a patch would drop them).
func withLastApplied(obj *unstructured.Unstructured, applied []byte) *unstructured.Unstructured {
	c := obj.DeepCopy()
	annotations := c.GetAnnotations()
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[corev1.LastAppliedConfigAnnotation] = string(applied)
	c.SetAnnotations(annotations)
	pruneNulls(c.Object)
	return c
}

// pruneNulls removes the keys whose value is null from v's maps, at every
// depth.
func pruneNulls(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if e == nil {
				delete(v, k)
				continue
			}
			pruneNulls(e)
		}
	case []any:
		for _, e := range v {
			pruneNulls(e)
		}
	}
}

// applyPatch builds the patch kubectl apply would send to turn cur into
// modified (the manifest, with its last-applied-configuration): the
// difference from cur to modified, plus the removal of what the last
// applied configuration had and modified no longer has. Kinds with Go
// types get a strategic merge patch, others a JSON merge patch that may
// not change apiVersion, kind or name. "{}" means there is nothing to do.
func applyPatch(gvk schema.GroupVersionKind, cur *unstructured.Unstructured, modified []byte) ([]byte, types.PatchType, error) {
	current, err := cur.MarshalJSON()
	if err != nil {
		return nil, "", err
	}
	var original []byte
	if s := cur.GetAnnotations()[corev1.LastAppliedConfigAnnotation]; s != "" {
		original = []byte(s)
	}
	typed, err := scheme.Scheme.New(gvk)
	switch {
	case err == nil:
		meta, err := strategicpatch.NewPatchMetaFromStruct(typed)
		if err != nil {
			return nil, "", err
		}
		patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, current, meta, true)
		return patch, types.StrategicMergePatchType, err
	case !runtime.IsNotRegisteredError(err):
		return nil, "", err
	}
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current,
		mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name"))
	return patch, types.MergePatchType, err
}
