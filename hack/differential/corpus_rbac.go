package main

// rbac is the URL prefix of rbac.authorization.k8s.io/v1.
const rbac = "/apis/rbac.authorization.k8s.io/v1"

// rbacRequests grant the run's ServiceAccount robot the right to read
// ConfigMaps (and nothing else), and try what RBAC refuses.
var rbacRequests = []request{
	{name: "role-create", method: "POST", path: rbac + "/namespaces/{ns}/roles",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"cm-reader","labels":{"diff":"yes"}},"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","list"]}]}`},
	{name: "role-get", path: rbac + "/namespaces/{ns}/roles/cm-reader", values: []string{"rules[].verbs"}},
	{name: "role-list", path: rbac + "/namespaces/{ns}/roles?labelSelector=" + label},
	{name: "role-create-invalid", method: "POST", path: rbac + "/namespaces/{ns}/roles",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"bad"},"rules":[{"resources":["pods"]}]}`},
	{name: "rolebinding-create", method: "POST", path: rbac + "/namespaces/{ns}/rolebindings",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"robot-reads","labels":{"diff":"yes"}},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm-reader"},"subjects":[{"kind":"ServiceAccount","name":"robot","namespace":"{ns}"}]}`},
	{name: "rolebinding-patch-roleref", method: "PATCH", path: rbac + "/namespaces/{ns}/rolebindings/robot-reads", ctype: "application/merge-patch+json",
		body: `{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"other"}}`},
	{name: "clusterrole-create", method: "POST", path: rbac + "/clusterroles",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRole","metadata":{"name":"diff-{id}-viewer","labels":{"diff":"yes"}},"rules":[{"apiGroups":[""],"resources":["nodes"],"verbs":["get"]}]}`},
	{name: "clusterrole-get-builtin", path: rbac + "/clusterroles/view",
		ignore: map[string]string{"rules": "the built-in role lists the resources each server serves"}},
	{name: "clusterrole-list", path: rbac + "/clusterroles?labelSelector=" + label, values: []string{"items[].metadata.name"}},
	{name: "clusterrolebinding-create", method: "POST", path: rbac + "/clusterrolebindings",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"ClusterRoleBinding","metadata":{"name":"diff-{id}-viewer","labels":{"diff":"yes"}},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"diff-{id}-viewer"},"subjects":[{"kind":"User","name":"diff-{id}-viewer"}]}`},
	{name: "clusterrolebinding-delete", method: "DELETE", path: rbac + "/clusterrolebindings/diff-{id}-viewer"},
	{name: "clusterrole-deletecollection", method: "DELETE", path: rbac + "/clusterroles?labelSelector=" + label, values: []string{"kind"}},
	{name: "role-escalation-as-robot", auth: asRobot, method: "POST", path: rbac + "/namespaces/{ns}/roles",
		body: `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"escalate"},"rules":[{"apiGroups":["*"],"resources":["*"],"verbs":["*"]}]}`},
}
