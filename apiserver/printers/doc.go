// Package printers renders API objects as meta.k8s.io/v1 Tables, the form
// kube-apiserver returns when a client such as kubectl asks for
// "application/json;as=Table;v=v1;g=meta.k8s.io".
//
// Each built-in kind with columns of its own has a Handler here (Pods,
// Nodes, Deployments...), made as upstream's TableHandler makes one: its
// columns and the row of one object. A resource's registration names its
// Handler (registry.Resource.Table); a resource that names none (Roles
// and ClusterRoles among them, as in kube-apiserver) gets Default, the
// generic two-column table (Name, Created At). Adding a kind's columns is
// one file here and one field in its registration. Like kube-apiserver,
// a conversion always fills every column, including the priority-1 ones
// that kubectl shows only with -o wide; the client decides which to
// print. Objects without metadata are rejected with a 406 NotAcceptable
// status error, the answer kube-apiserver gives for a resource that
// cannot be shown as a Table.
//
// Concurrency: a conversion is a pure function of its arguments (the
// clock is Options.Now). It never modifies the object it is given and is
// safe for concurrent use.
package printers
