// Package printers renders API objects as meta.k8s.io/v1 Tables, the form
// kube-apiserver returns when a client such as kubectl asks for
// "application/json;as=Table;v=v1;g=meta.k8s.io".
//
// ToTable knows the columns kube-apiserver uses for pods, nodes,
// namespaces, core/v1 events, leases, RoleBindings and
// ClusterRoleBindings, and gives any other object that has metadata
// (Roles and ClusterRoles among them, as kube-apiserver does) the generic
// two-column table (Name, Created At). Like kube-apiserver, it always
// fills every column, including the priority-1 ones that kubectl shows
// only with -o wide; the client decides which to print. Objects without
// metadata are rejected with a 406 NotAcceptable status error, the answer
// kube-apiserver gives for a resource that cannot be shown as a Table.
//
// Concurrency: ToTable is a pure function of its arguments (the clock is
// Options.Now). It never modifies the object it is given and is safe for
// concurrent use.
package printers
