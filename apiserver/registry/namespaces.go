package registry

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/storage"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// The namespaces every cluster starts with.
var BootstrapNamespaces = []string{
	metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease,
}

// Namespaces is the namespaces resource. Deleting a namespace marks it
// Terminating; the controller manager's namespace controller empties it
// and then drops the kubernetes finalizer through namespaces/finalize,
// which removes it (a write that leaves a namespace being deleted with
// no spec.finalizers and no metadata.finalizers deletes it, as
// upstream's ShouldDeleteNamespaceDuringUpdate).
var Namespaces = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("Namespace"),
	Plural:              "namespaces",
	ReturnDeletedObject: true,
	Singular:            "namespace",
	ShortNames:          []string{"ns"},
	NewFunc:             func() runtime.Object { return &corev1.Namespace{} },
	NewListFunc:         func() runtime.Object { return &corev1.NamespaceList{} },
	Status:              &NamespaceStatusStrategy,
	// No deletecollection, as upstream's namespace storage.
	Verbs:   []string{"create", "delete", "get", "list", "patch", "update", "watch"},
	Table:   printers.Namespaces,
	Default: defaultNamespace,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			ns := obj.(*corev1.Namespace)
			ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
			if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
				ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
			}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
			ns.Spec.Finalizers = o.Spec.Finalizers
			ns.Status = o.Status
		},
		Validate:                 validateNamespace,
		ValidateUpdate:           validateNamespaceUpdate,
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		ns := obj.(*corev1.Namespace)
		return fields.Set{"metadata.name": ns.Name, "status.phase": string(ns.Status.Phase)}
	},
	FieldLabels: []string{"status.phase", "metadata.name"},
	SpecFinalizers: func(obj runtime.Object) int {
		return len(obj.(*corev1.Namespace).Spec.Finalizers)
	},
}

// NamespaceStatusStrategy is the strategy of namespaces/status.
var NamespaceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Namespace).Spec = old.(*corev1.Namespace).Spec
	},
	ValidateUpdate:           validateNamespaceStatus,
	AllowUnconditionalUpdate: true,
}

// NamespaceFinalizeStrategy is the strategy of namespaces/finalize: only
// spec.finalizers may change.
var NamespaceFinalizeStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
	},
	ValidateUpdate:           validateNamespaceFinalize,
	AllowUnconditionalUpdate: true,
}

// The defaults (the kubernetes.io/metadata.name label) and validation of
// namespaces are upstream's namespaceStrategy, namespaceStatusStrategy
// and namespaceFinalizeStrategy (pkg/registry/core/namespace/strategy.go).
var (
	defaultNamespace        = upstreamDefaults(upcorev1.SetObjectDefaults_Namespace, upcorev1.Convert_v1_Namespace_To_core_Namespace, upcorev1.Convert_core_Namespace_To_v1_Namespace)
	validateNamespace       = upstreamValidate(upcorev1.Convert_v1_Namespace_To_core_Namespace, corevalidation.ValidateNamespace)
	validateNamespaceUpdate = upstreamValidateUpdate(upcorev1.Convert_v1_Namespace_To_core_Namespace, func(ns, old *core.Namespace) field.ErrorList {
		return append(corevalidation.ValidateNamespace(ns), corevalidation.ValidateNamespaceUpdate(ns, old)...)
	})
	validateNamespaceStatus   = upstreamValidateSubresource("status", upcorev1.Convert_v1_Namespace_To_core_Namespace, corevalidation.ValidateNamespaceStatusUpdate)
	validateNamespaceFinalize = upstreamValidateSubresource("finalize", upcorev1.Convert_v1_Namespace_To_core_Namespace, corevalidation.ValidateNamespaceFinalizeUpdate)
)

// DeleteNamespace starts the deletion of a namespace: the first call marks
// it Terminating (the answer is the namespace, 200); it is removed only
// once its spec.finalizers are empty.
func DeleteNamespace(ctx context.Context, s *Store, name string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := s.Get(ctx, "", name, nil)
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	precond := &storage.Preconditions{UID: &ns.UID}
	if p := opts.Preconditions; p != nil {
		precond.ResourceVersion = p.ResourceVersion
		if p.UID != nil {
			precond.UID = p.UID
		}
	}
	key := s.Key("", name)
	if err := s.precondConflict(precond, ns, "Precondition"); err != nil {
		return nil, false, err
	}
	if ns.DeletionTimestamp == nil {
		out, err := s.storage.GuaranteedUpdate(ctx, key, precond, false, storage.WriteOptions{DryRun: isDryRun(opts.DryRun)}, func(cur runtime.Object) (runtime.Object, error) {
			if deleteValidation != nil {
				if err := deleteValidation(ctx, cur); err != nil {
					return nil, err
				}
			}
			n := cur.(*corev1.Namespace)
			if n.DeletionTimestamp == nil {
				now := metav1.Now()
				n.DeletionTimestamp = &now
			}
			n.Status.Phase = corev1.NamespaceTerminating
			return n, nil
		})
		if err != nil {
			return nil, false, s.interpret(err, name)
		}
		return out, false, nil
	}
	if len(ns.Spec.Finalizers) != 0 {
		return ns, false, nil
	}
	return s.Delete(ctx, "", name, deleteValidation, opts)
}
