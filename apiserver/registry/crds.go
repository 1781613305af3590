package registry

import (
	"context"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
	"github.com/kubesim/kubesim/apiserver/storage"
)

// CustomResourceDefinitions is apiextensions.k8s.io/v1
// customresourcedefinitions, served by the apiextensions server of the
// delegation chain and stored, as upstream, under
// /registry/apiextensions.k8s.io/customresourcedefinitions/. Its strategy
// is upstream's: the v1 defaults on decoding, the status reset on create
// and kept on update, the generation bumped by a spec change, the storage
// version recorded in status.storedVersions, and upstream's CRD
// validation.
var CustomResourceDefinitions = &Resource{
	Kind:        apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"),
	Plural:      "customresourcedefinitions",
	Singular:    "customresourcedefinition",
	ShortNames:  []string{"crd", "crds"},
	Categories:  []string{"api-extensions"},
	KeyPrefix:   "apiextensions.k8s.io/customresourcedefinitions",
	NewFunc:     func() runtime.Object { return &apiextensionsv1.CustomResourceDefinition{} },
	NewListFunc: func() runtime.Object { return &apiextensionsv1.CustomResourceDefinitionList{} },
	Status:      &CustomResourceDefinitionStatusStrategy,
	Default: func(obj runtime.Object, _ bool) []string {
		apiextensions.Default(obj.(*apiextensionsv1.CustomResourceDefinition))
		return nil
	},
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			crd := obj.(*apiextensionsv1.CustomResourceDefinition)
			crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
			crd.Generation = 1
			recordStoredVersion(crd)
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			crd, o := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
			crd.Status = o.Status
			if !equality.Semantic.DeepEqual(crd.Spec, o.Spec) {
				crd.Generation = o.Generation + 1
			}
			recordStoredVersion(crd)
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			return apiextensions.Validate(context.Background(), obj.(*apiextensionsv1.CustomResourceDefinition))
		},
		ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
			return apiextensions.ValidateUpdate(context.Background(), obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
		},
	},
}

// recordStoredVersion adds the storage version to status.storedVersions,
// as upstream's strategy does on create and update.
func recordStoredVersion(crd *apiextensionsv1.CustomResourceDefinition) {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			if !apihelpers.IsStoredVersion(crd, v.Name) {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
			}
			return
		}
	}
}

// CustomResourceDefinitionStatusStrategy serves
// customresourcedefinitions/status: the spec stays as it was. Upstream's
// status strategy means to reset the metadata too, but its call resets
// the new metadata from itself, so metadata changes (the finalizer
// controller removing its finalizer) go through; kubesim does the same.
var CustomResourceDefinitionStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		crd, o := obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition)
		crd.Spec = o.Spec
	},
	ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
		return apiextensions.ValidateStatusUpdate(context.Background(), obj.(*apiextensionsv1.CustomResourceDefinition), old.(*apiextensionsv1.CustomResourceDefinition))
	},
}

// DeleteCustomResourceDefinition deletes a CRD as upstream's CRD storage
// does: the first delete only marks it (deletionTimestamp, the
// customresourcecleanup.apiextensions.k8s.io finalizer and a Terminating
// condition, reason InstanceDeletionPending) and answers the CRD; the
// finalizer controller then deletes its custom resources and removes the
// finalizer, which removes the CRD. A later delete is an ordinary one
// (the object stays while the finalizer does).
func DeleteCustomResourceDefinition(ctx context.Context, s *Store, name string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := s.Get(ctx, "", name, nil)
	if err != nil {
		return nil, false, err
	}
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	precond := &storage.Preconditions{UID: &crd.UID}
	if p := opts.Preconditions; p != nil {
		precond.ResourceVersion = p.ResourceVersion
		if p.UID != nil {
			precond.UID = p.UID
		}
	}
	key := s.Key("", name)
	if err := s.precondConflict(precond, crd, "precondition"); err != nil {
		return nil, false, err
	}
	if crd.DeletionTimestamp != nil {
		return s.Delete(ctx, "", name, deleteValidation, opts)
	}
	out, err := s.storage.GuaranteedUpdate(ctx, key, precond, false, storage.WriteOptions{DryRun: isDryRun(opts.DryRun)}, func(cur runtime.Object) (runtime.Object, error) {
		if deleteValidation != nil {
			if err := deleteValidation(ctx, cur); err != nil {
				return nil, err
			}
		}
		c := cur.(*apiextensionsv1.CustomResourceDefinition)
		if c.DeletionTimestamp == nil {
			now := metav1.Now()
			c.DeletionTimestamp = &now
		}
		if !apihelpers.CRDHasFinalizer(c, apiextensionsv1.CustomResourceCleanupFinalizer) {
			c.Finalizers = append(c.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
		}
		apihelpers.SetCRDCondition(c, apiextensionsv1.CustomResourceDefinitionCondition{
			Type: apiextensionsv1.Terminating, Status: apiextensionsv1.ConditionTrue, Reason: "InstanceDeletionPending",
			Message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
		})
		return c, nil
	})
	if err != nil {
		return nil, false, s.interpret(err, name)
	}
	return out, false, nil
}
