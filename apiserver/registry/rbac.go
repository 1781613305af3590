package registry

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// The four RBAC resources of rbac.authorization.k8s.io/v1. Names are path
// segments (they may contain ":"), as upstream allows.
var (
	Roles = &Resource{
		Kind:         rbacv1.SchemeGroupVersion.WithKind("Role"),
		Plural:       "roles",
		Singular:     "role",
		Namespaced:   true,
		NewFunc:      func() runtime.Object { return &rbacv1.Role{} },
		NewListFunc:  func() runtime.Object { return &rbacv1.RoleList{} },
		ValidateName: validatePathSegmentName,
		Strategy: Strategy{
			Validate:                 func(obj runtime.Object) field.ErrorList { return validateRules(obj.(*rbacv1.Role).Rules, true) },
			ValidateUpdate:           func(obj, _ runtime.Object) field.ErrorList { return validateRules(obj.(*rbacv1.Role).Rules, true) },
			AllowUnconditionalUpdate: true,
		},
	}
	ClusterRoles = &Resource{
		Kind:         rbacv1.SchemeGroupVersion.WithKind("ClusterRole"),
		Plural:       "clusterroles",
		Singular:     "clusterrole",
		NewFunc:      func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewListFunc:  func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		ValidateName: validatePathSegmentName,
		Strategy: Strategy{
			Validate: func(obj runtime.Object) field.ErrorList { return validateRules(obj.(*rbacv1.ClusterRole).Rules, false) },
			ValidateUpdate: func(obj, _ runtime.Object) field.ErrorList {
				return validateRules(obj.(*rbacv1.ClusterRole).Rules, false)
			},
			AllowUnconditionalUpdate: true,
		},
	}
	RoleBindings = &Resource{
		Kind:         rbacv1.SchemeGroupVersion.WithKind("RoleBinding"),
		Plural:       "rolebindings",
		Singular:     "rolebinding",
		Namespaced:   true,
		NewFunc:      func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewListFunc:  func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Table:        printers.RoleBindings,
		ValidateName: validatePathSegmentName,
		Strategy: Strategy{
			Validate: func(obj runtime.Object) field.ErrorList {
				b := obj.(*rbacv1.RoleBinding)
				return validateBinding(b.RoleRef, b.Subjects, []string{"Role", "ClusterRole"})
			},
			ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
				b, o := obj.(*rbacv1.RoleBinding), old.(*rbacv1.RoleBinding)
				return append(validateBinding(b.RoleRef, b.Subjects, []string{"Role", "ClusterRole"}), roleRefUnchanged(b.RoleRef, o.RoleRef)...)
			},
			AllowUnconditionalUpdate: true,
		},
	}
	ClusterRoleBindings = &Resource{
		Kind:         rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"),
		Plural:       "clusterrolebindings",
		Singular:     "clusterrolebinding",
		NewFunc:      func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewListFunc:  func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Table:        printers.ClusterRoleBindings,
		ValidateName: validatePathSegmentName,
		Strategy: Strategy{
			Validate: func(obj runtime.Object) field.ErrorList {
				b := obj.(*rbacv1.ClusterRoleBinding)
				return validateBinding(b.RoleRef, b.Subjects, []string{"ClusterRole"})
			},
			ValidateUpdate: func(obj, old runtime.Object) field.ErrorList {
				b, o := obj.(*rbacv1.ClusterRoleBinding), old.(*rbacv1.ClusterRoleBinding)
				return append(validateBinding(b.RoleRef, b.Subjects, []string{"ClusterRole"}), roleRefUnchanged(b.RoleRef, o.RoleRef)...)
			},
			AllowUnconditionalUpdate: true,
		},
	}
)

// validatePathSegmentName accepts any name that can be a URL path segment
// (RBAC names such as "system:node" contain colons).
func validatePathSegmentName(name string, prefix bool) []string {
	return path.ValidatePathSegmentName(name, prefix)
}

// validateRules checks policy rules as upstream does.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, r := range rules {
		p := field.NewPath("rules").Index(i)
		if len(r.Verbs) == 0 {
			errs = append(errs, field.Required(p.Child("verbs"), "verbs must contain at least one value"))
		}
		if len(r.NonResourceURLs) > 0 {
			if namespaced {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
			}
			if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
				errs = append(errs, field.Invalid(p.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
			}
			continue
		}
		if len(r.APIGroups) == 0 {
			errs = append(errs, field.Required(p.Child("apiGroups"), "resource rules must supply at least one api group"))
		}
		if len(r.Resources) == 0 {
			errs = append(errs, field.Required(p.Child("resources"), "resource rules must supply at least one resource"))
		}
	}
	return errs
}

// validateBinding checks a binding's roleRef and subjects.
func validateBinding(ref rbacv1.RoleRef, subjects []rbacv1.Subject, kinds []string) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	okKind := false
	for _, k := range kinds {
		okKind = okKind || ref.Kind == k
	}
	if !okKind {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
	} else {
		for _, msg := range path.ValidatePathSegmentName(ref.Name, false) {
			errs = append(errs, field.Invalid(field.NewPath("roleRef", "name"), ref.Name, msg))
		}
	}
	for i, s := range subjects {
		p := field.NewPath("subjects").Index(i)
		if s.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if s.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

// roleRefUnchanged: a binding's roleRef is immutable.
func roleRefUnchanged(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref != old {
		return field.ErrorList{field.Invalid(field.NewPath("roleRef"), ref, "cannot change roleRef")}
	}
	return nil
}

// RBACWriteCheck refuses a write to an RBAC object that would grant
// permissions its writer may not grant (the API server's escalation
// check). obj is the object to store; old is the stored one on an update,
// nil on a create. It returns the error to answer with, nil to go on.
type RBACWriteCheck func(ctx context.Context, obj, old runtime.Object) error

// SetRBACWriteChecks installs checks on the four RBAC stores, as
// kube-apiserver's RBAC storage wraps its stores (pkg/registry/rbac/*/
// policybased): on a create before the strategy and validation run, and
// on an update once the stored object is read, except for an update that
// changes only what the garbage collector changes (finalizers, owner
// references, managed fields), which may always go on.
func (r *Registry) SetRBACWriteChecks(roles, clusterRoles, roleBindings, clusterRoleBindings RBACWriteCheck) {
	for _, s := range []struct {
		store *Store
		check RBACWriteCheck
	}{{r.Roles, roles}, {r.ClusterRoles, clusterRoles}, {r.RoleBindings, roleBindings}, {r.ClusterRoleBindings, clusterRoleBindings}} {
		check := s.check
		s.store.strategy.BeginCreate = func(ctx context.Context, obj runtime.Object, _ Options) (func(runtime.Object), error) {
			return func(runtime.Object) {}, check(ctx, obj, nil)
		}
		s.store.strategy.BeginUpdate = func(ctx context.Context, obj, old runtime.Object, _ Options) (func(runtime.Object), error) {
			if onlyGCFieldsChange(obj, old) {
				return func(runtime.Object) {}, nil
			}
			return func(runtime.Object) {}, check(ctx, obj, old)
		}
	}
}

// onlyGCFieldsChange reports whether obj differs from old in nothing but
// the fields the garbage collector writes (upstream's
// IsOnlyMutatingGCFields): owner references, finalizers, and the managed
// fields and self link that go with any write.
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	c := obj.DeepCopyObject()
	cm, err := meta.Accessor(c)
	if err != nil {
		return false
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cm.SetOwnerReferences(om.GetOwnerReferences())
	cm.SetFinalizers(om.GetFinalizers())
	cm.SetSelfLink(om.GetSelfLink())
	cm.SetManagedFields(om.GetManagedFields())
	return equality.Semantic.DeepEqual(c, old)
}
