package registry_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// wantConflict fails unless err is a 409 whose message and details.kind
// are exactly msg and kind.
func wantConflict(t *testing.T, err error, msg, kind string) {
	t.Helper()
	se, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("err = %v (%T), want a Conflict", err, err)
	}
	st := se.Status()
	if st.Code != 409 || st.Message != msg || st.Details == nil || st.Details.Kind != kind {
		t.Errorf("got %d %q (details %+v)\nwant 409 %q, details.kind %q", st.Code, st.Message, st.Details, msg, kind)
	}
}

// TestPreconditionAnswers checks the texts of failed preconditions against
// kube-apiserver v1.37.2's (taken from one): a delete's are rest.BeforeDelete's
// and name the Kind, a namespace's are its storage's own, and a PUT whose
// metadata.uid is not the stored one fails in storage, as a StorageError.
func TestPreconditionAnswers(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	cm, err := r.ConfigMaps.Create(ctx, "default", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm2"}}, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	uid, rv := cm.(*corev1.ConfigMap).UID, cm.(*corev1.ConfigMap).ResourceVersion
	zero := types.UID("00000000-0000-0000-0000-000000000000")

	t.Run("delete uid", func(t *testing.T) {
		_, _, err := r.ConfigMaps.Delete(ctx, "default", "cm2", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &zero}})
		wantConflict(t, err, `Operation cannot be fulfilled on ConfigMap "cm2": the UID in the precondition (00000000-0000-0000-0000-000000000000) does not match the UID in record (`+string(uid)+`). The object might have been deleted and then recreated`, "ConfigMap")
	})
	t.Run("delete resourceVersion", func(t *testing.T) {
		_, _, err := r.ConfigMaps.Delete(ctx, "default", "cm2", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
		wantConflict(t, err, `Operation cannot be fulfilled on ConfigMap "cm2": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (`+rv+`). The object might have been modified`, "ConfigMap")
	})
	t.Run("put uid", func(t *testing.T) {
		put := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm2", UID: zero}}
		_, _, err := r.ConfigMaps.Update(ctx, "default", "cm2", replaceWith(put), nil, nil, registry.Options{UID: zero})
		wantConflict(t, err, `Operation cannot be fulfilled on configmaps "cm2": StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/cm2, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: 00000000-0000-0000-0000-000000000000, UID in object meta: `+string(uid), "configmaps")
	})
	t.Run("namespace", func(t *testing.T) {
		ns, err := r.Namespaces.Create(ctx, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, nil, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := ns.(*corev1.Namespace)
		_, _, err = registry.DeleteNamespace(ctx, r.Namespaces, "team", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("nope"))}})
		wantConflict(t, err, `Operation cannot be fulfilled on namespaces "team": Precondition failed: UID in precondition: nope, UID in object meta: `+string(n.UID), "namespaces")
		_, _, err = registry.DeleteNamespace(ctx, r.Namespaces, "team", nil, &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To("1")}})
		wantConflict(t, err, `Operation cannot be fulfilled on namespaces "team": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: `+n.ResourceVersion, "namespaces")
	})
}
