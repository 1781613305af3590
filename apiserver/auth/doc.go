// Package auth decides who is calling the API server and whether they may
// do what they ask, the way kube-apiserver does, so that real clients see
// the same identities, 401s and 403s.
//
// A request passes through three steps, each a small role interface:
//
//   - Authentication: an Authenticator turns credentials (a bearer token,
//     a verified client certificate) into a User. Union tries several;
//     WithAnonymous makes a request without credentials system:anonymous
//     (whom the default RBAC lets read only the health and version paths).
//   - Request attributes: ResolveRequest reads the verb, API group,
//     resource, subresource, namespace and name from the method, path and
//     query, following kube-apiserver's RequestInfoFactory.
//   - Authorization: an Authorizer answers Allow, Deny or NoOpinion. Chain
//     asks its authorizers in order (the server's: the Node authorizer,
//     then RBAC); the first Allow or Deny wins and a request nobody allows
//     is denied. Forbidden builds the 403 Status with kube-apiserver's
//     message.
//
// BootstrapPolicy returns the default ClusterRoles and ClusterRoleBindings
// that the server writes at first boot (cluster-admin, admin, edit, view,
// system:node, system:kube-scheduler, the discovery roles, and kubesim's
// binding of view to the user "student").
//
// The zero values are the safe ones: the zero Decision is DecisionDeny and
// a nil *User matches no RBAC subject.
package auth
