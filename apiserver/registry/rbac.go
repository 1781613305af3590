package registry

import (
	"context"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kubernetes/pkg/apis/rbac"
	uprbacv1 "k8s.io/kubernetes/pkg/apis/rbac/v1"
	rbacvalidation "k8s.io/kubernetes/pkg/apis/rbac/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// The four RBAC resources of rbac.authorization.k8s.io/v1, with the
// defaults and validation of upstream's strategies (pkg/registry/rbac/*):
// names are path segments (they may contain ":").
var (
	Roles = &Resource{
		Kind:        rbacv1.SchemeGroupVersion.WithKind("Role"),
		Plural:      "roles",
		Singular:    "role",
		Namespaced:  true,
		NewFunc:     func() runtime.Object { return &rbacv1.Role{} },
		NewListFunc: func() runtime.Object { return &rbacv1.RoleList{} },
		Strategy: Strategy{
			Validate:                 upstreamValidate(uprbacv1.Convert_v1_Role_To_rbac_Role, rbacvalidation.ValidateRole),
			ValidateUpdate:           upstreamValidateUpdate(uprbacv1.Convert_v1_Role_To_rbac_Role, rbacvalidation.ValidateRoleUpdate),
			AllowUnconditionalUpdate: true,
		},
	}
	ClusterRoles = &Resource{
		Kind:        rbacv1.SchemeGroupVersion.WithKind("ClusterRole"),
		Plural:      "clusterroles",
		Singular:    "clusterrole",
		NewFunc:     func() runtime.Object { return &rbacv1.ClusterRole{} },
		NewListFunc: func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		Strategy: Strategy{
			Validate: upstreamValidate(uprbacv1.Convert_v1_ClusterRole_To_rbac_ClusterRole, func(r *rbac.ClusterRole) field.ErrorList {
				return rbacvalidation.ValidateClusterRole(r, rbacvalidation.ClusterRoleValidationOptions{})
			}),
			ValidateUpdate: upstreamValidateUpdate(uprbacv1.Convert_v1_ClusterRole_To_rbac_ClusterRole, func(r, old *rbac.ClusterRole) field.ErrorList {
				opts := rbacvalidation.ClusterRoleValidationOptions{AllowInvalidLabelValueInSelector: hasInvalidLabelValueInSelector(old)}
				return rbacvalidation.ValidateClusterRoleUpdate(r, old, opts)
			}),
			AllowUnconditionalUpdate: true,
		},
	}
	RoleBindings = &Resource{
		Kind:        rbacv1.SchemeGroupVersion.WithKind("RoleBinding"),
		Plural:      "rolebindings",
		Singular:    "rolebinding",
		Namespaced:  true,
		NewFunc:     func() runtime.Object { return &rbacv1.RoleBinding{} },
		NewListFunc: func() runtime.Object { return &rbacv1.RoleBindingList{} },
		Table:       printers.RoleBindings,
		Default:     upstreamDefaults(uprbacv1.SetObjectDefaults_RoleBinding, uprbacv1.Convert_v1_RoleBinding_To_rbac_RoleBinding, uprbacv1.Convert_rbac_RoleBinding_To_v1_RoleBinding),
		Strategy: Strategy{
			Validate:                 upstreamValidate(uprbacv1.Convert_v1_RoleBinding_To_rbac_RoleBinding, rbacvalidation.ValidateRoleBinding),
			ValidateUpdate:           upstreamValidateUpdate(uprbacv1.Convert_v1_RoleBinding_To_rbac_RoleBinding, rbacvalidation.ValidateRoleBindingUpdate),
			AllowUnconditionalUpdate: true,
		},
	}
	ClusterRoleBindings = &Resource{
		Kind:        rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding"),
		Plural:      "clusterrolebindings",
		Singular:    "clusterrolebinding",
		NewFunc:     func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		NewListFunc: func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		Table:       printers.ClusterRoleBindings,
		Default:     upstreamDefaults(uprbacv1.SetObjectDefaults_ClusterRoleBinding, uprbacv1.Convert_v1_ClusterRoleBinding_To_rbac_ClusterRoleBinding, uprbacv1.Convert_rbac_ClusterRoleBinding_To_v1_ClusterRoleBinding),
		Strategy: Strategy{
			Validate:                 upstreamValidate(uprbacv1.Convert_v1_ClusterRoleBinding_To_rbac_ClusterRoleBinding, rbacvalidation.ValidateClusterRoleBinding),
			ValidateUpdate:           upstreamValidateUpdate(uprbacv1.Convert_v1_ClusterRoleBinding_To_rbac_ClusterRoleBinding, rbacvalidation.ValidateClusterRoleBindingUpdate),
			AllowUnconditionalUpdate: true,
		},
	}
)

// hasInvalidLabelValueInSelector reports whether a stored ClusterRole's
// aggregation rule has a selector today's rules refuse, which its update
// may keep, as upstream's hasInvalidLabelValueInLabelSelector
// (pkg/registry/rbac/clusterrole/strategy.go).
func hasInvalidLabelValueInSelector(r *rbac.ClusterRole) bool {
	if r.AggregationRule == nil {
		return false
	}
	for _, sel := range r.AggregationRule.ClusterRoleSelectors {
		if len(metav1validation.ValidateLabelSelector(&sel, metav1validation.LabelSelectorValidationOptions{}, nil)) > 0 {
			return true
		}
	}
	return false
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
