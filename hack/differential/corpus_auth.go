package main

// ssar asks whether the requester may list pods in the run's namespace.
const ssar = `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"list","resource":"pods","namespace":"{ns}"}}}`

// impersonate is an admin request's headers to act as another user.
func impersonate(user string, groups ...string) map[string]string {
	h := map[string]string{"Impersonate-User": user}
	if len(groups) > 0 {
		h["Impersonate-Group"] = groups[0]
	}
	return h
}

// authRequests are authentication and authorization: who may ask, and
// the reviews.
var authRequests = []request{
	{name: "anonymous-version", auth: asAnonymous, path: "/version"},
	{name: "anonymous-healthz", auth: asAnonymous, path: "/healthz", accept: "*/*"},
	{name: "anonymous-api", auth: asAnonymous, path: "/api"},
	{name: "anonymous-list-pods", auth: asAnonymous, path: pods},
	{name: "bad-token-version", auth: asBadToken, path: "/version"},
	{name: "bad-token-list-pods", auth: asBadToken, path: pods},
	{name: "robot-get-configmap", auth: asRobot, path: cm + "/cm1", values: []string{"metadata.name"}},
	{name: "robot-list-pods", auth: asRobot, path: pods},
	{name: "robot-delete-configmap", auth: asRobot, method: "DELETE", path: cm + "/cm1"},
	{name: "robot-list-nodes", auth: asRobot, path: nodes},
	{name: "robot-impersonates-admin", auth: asRobot, path: cm, header: impersonate("admin")},
	{name: "impersonate-admin-masters", path: pods + "?labelSelector=" + label, header: impersonate("admin", "system:masters"),
		ignore: map[string]string{"items": "the pods left depend on kubesim's kubelets"}},
	{name: "impersonate-user-denied", path: pods, header: impersonate("diff-{id}-nobody")},
	{name: "impersonate-serviceaccount", path: cm + "/cm1", header: impersonate("system:serviceaccount:{ns}:robot")},
	{name: "impersonate-group-without-user", path: pods, header: map[string]string{"Impersonate-Group": "system:masters"}},
	{name: "selfsubjectaccessreview", method: "POST", path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		body: ssar, values: []string{"status.allowed"}},
	{name: "selfsubjectaccessreview-denied", method: "POST", path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
		body: ssar, header: impersonate("diff-{id}-nobody"), values: []string{"status.allowed", "status.reason"}},
	{name: "selfsubjectrulesreview", method: "POST", path: "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", auth: asRobot,
		body:   `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectRulesReview","spec":{"namespace":"{ns}"}}`,
		values: []string{"status.incomplete"}},
	{name: "selfsubjectreview", method: "POST", path: "/apis/authentication.k8s.io/v1/selfsubjectreviews", auth: asRobot,
		body:   `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`,
		values: []string{"status.userInfo.username", "status.userInfo.groups"}},
	{name: "subjectaccessreview", method: "POST", path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
		body:   `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"system:serviceaccount:{ns}:robot","resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"{ns}"}}}`,
		values: []string{"status.allowed"}},
	{name: "localsubjectaccessreview", method: "POST", path: "/apis/authorization.k8s.io/v1/namespaces/{ns}/localsubjectaccessreviews",
		body:   `{"apiVersion":"authorization.k8s.io/v1","kind":"LocalSubjectAccessReview","spec":{"user":"diff-{id}-nobody","resourceAttributes":{"verb":"get","resource":"configmaps","namespace":"{ns}"}}}`,
		values: []string{"status.allowed"}},
	{name: "tokenreview", method: "POST", path: "/apis/authentication.k8s.io/v1/tokenreviews",
		body:   `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"{robotToken}"}}`,
		values: []string{"status.authenticated", "status.user.username"}},
}
