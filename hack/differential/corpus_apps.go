package main

// The URLs of the run namespace's apps/v1 resources.
const (
	deployments = "/apis/apps/v1/namespaces/{ns}/deployments"
	replicasets = "/apis/apps/v1/namespaces/{ns}/replicasets"
	revisions   = "/apis/apps/v1/namespaces/{ns}/controllerrevisions"
)

// workload is why a workload's status and annotations are left out
// after its create: kubesim's controllers act on it, the peer has none.
var workload = map[string]string{
	"status":               "kubesim's controllers write the status; the peer runs no controller manager",
	"metadata.annotations": "kubesim's deployment controller adds deployment.kubernetes.io/revision",
}

// appsRequests are apps/v1's kinds.
var appsRequests = []request{
	{name: "deployment-create", method: "POST", path: deployments,
		body:   `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d1","labels":{"diff":"yes"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"d1"}},"template":{"metadata":{"labels":{"app":"d1"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`,
		values: []string{"spec.strategy.type", "spec.revisionHistoryLimit", "spec.progressDeadlineSeconds", "spec.template.spec.restartPolicy"}},
	{name: "deployment-get", path: deployments + "/d1", ignore: workload},
	{name: "deployment-list", path: deployments + "?labelSelector=" + label, ignore: map[string]string{
		"items[].status": workload["status"], "items[].metadata.annotations": workload["metadata.annotations"]}},
	{name: "deployment-get-scale", path: deployments + "/d1/scale", values: []string{"kind", "apiVersion", "spec.replicas"},
		ignore: map[string]string{"status": workload["status"]}},
	{name: "deployment-patch-scale", method: "PATCH", path: deployments + "/d1/scale", ctype: "application/merge-patch+json",
		body: `{"spec":{"replicas":0}}`, values: []string{"spec.replicas"}, ignore: map[string]string{"status": workload["status"]}},
	{name: "deployment-patch-strategic-containers", method: "PATCH", path: deployments + "/d1", ctype: "application/strategic-merge-patch+json",
		body:   `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"busybox:2"}]}}}}`,
		values: []string{"spec.template.spec.containers[].image", "metadata.generation"}, ignore: workload},
	{name: "deployment-create-selector-mismatch", method: "POST", path: deployments,
		body: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d2"},"spec":{"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"b"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
	{name: "deployment-create-old-apiversion", method: "POST", path: deployments,
		body: `{"apiVersion":"extensions/v1beta1","kind":"Deployment","metadata":{"name":"d3"}}`},
	{name: "deployment-delete", method: "DELETE", path: deployments + "/d1", values: []string{"kind"}},

	{name: "replicaset-create", method: "POST", path: replicasets,
		body: `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs1","labels":{"diff":"yes"}},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"rs1"}},"template":{"metadata":{"labels":{"app":"rs1"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}}}`},
	{name: "replicaset-get", path: replicasets + "/rs1", ignore: workload},
	{name: "replicaset-deletecollection", method: "DELETE", path: replicasets + "?labelSelector=" + label,
		values: []string{"kind"}, ignore: map[string]string{"items[].status": workload["status"]}},

	{name: "controllerrevision-create", method: "POST", path: revisions,
		body: `{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"cr1","labels":{"diff":"yes"}},"revision":1,"data":{"x":1}}`},
	{name: "controllerrevision-update-immutable", method: "PATCH", path: revisions + "/cr1", ctype: "application/merge-patch+json",
		body: `{"revision":2}`},
	{name: "controllerrevision-delete", method: "DELETE", path: revisions + "/cr1"},
}
