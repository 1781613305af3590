package printers

import (
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// roleBindingColumns are the columns of `kubectl get rolebindings`; the
// priority-1 ones appear with -o wide. The ROLE description is the
// rbac/v1beta1 one, which is what kube-apiserver serves.
var roleBindingColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Role", Type: "string", Description: rbacv1beta1.RoleBinding{}.SwaggerDoc()["roleRef"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Users", Type: "string", Priority: 1, Description: "Users in the roleBinding"},
	{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the roleBinding"},
	{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the roleBinding"},
}

// clusterRoleBindingColumns are the columns of `kubectl get
// clusterrolebindings`; the priority-1 ones appear with -o wide.
var clusterRoleBindingColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Role", Type: "string", Description: rbacv1beta1.ClusterRoleBinding{}.SwaggerDoc()["roleRef"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "Users", Type: "string", Priority: 1, Description: "Users in the clusterRoleBinding"},
	{Name: "Groups", Type: "string", Priority: 1, Description: "Groups in the clusterRoleBinding"},
	{Name: "ServiceAccounts", Type: "string", Priority: 1, Description: "ServiceAccounts in the clusterRoleBinding"},
}

// roleBinding prints one RoleBinding: NAME ROLE AGE USERS GROUPS
// SERVICEACCOUNTS.
func (p printer) roleBinding(b *rbacv1.RoleBinding) metav1.TableRow {
	return p.binding(b, &b.ObjectMeta, b.RoleRef, b.Subjects)
}

// clusterRoleBinding prints one ClusterRoleBinding, with the same cells as a
// RoleBinding.
func (p printer) clusterRoleBinding(b *rbacv1.ClusterRoleBinding) metav1.TableRow {
	return p.binding(b, &b.ObjectMeta, b.RoleRef, b.Subjects)
}

// binding prints either kind of binding. ROLE is "Kind/name"; the subject
// cells list users, groups and "namespace/name" service accounts, each
// joined by ", ". Subjects of any other kind are not shown.
func (p printer) binding(obj runtime.Object, m *metav1.ObjectMeta, ref rbacv1.RoleRef, subjects []rbacv1.Subject) metav1.TableRow {
	users, groups, sas := []string{}, []string{}, []string{}
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		}
	}
	return metav1.TableRow{
		Cells: []any{
			m.Name,
			ref.Kind + "/" + ref.Name,
			p.since(m.CreationTimestamp.Time),
			strings.Join(users, ", "),
			strings.Join(groups, ", "),
			strings.Join(sas, ", "),
		},
		Object: runtime.RawExtension{Object: obj},
	}
}

// RoleBindings prints role bindings.
var RoleBindings = tableHandler(roleBindingColumns, printer.roleBinding)

// ClusterRoleBindings prints cluster role bindings.
var ClusterRoleBindings = tableHandler(clusterRoleBindingColumns, printer.clusterRoleBinding)
