package main

// corpus is every request of a run, in the order they are sent; each
// server gets them one after the other, so that a request sees what the
// ones before it made.
func corpus() []request {
	var all []request
	for _, part := range [][]request{
		setupRequests, configMapRequests, listRequests, watchRequests,
		errorRequests, mediaRequests, coreRequests, podRequests,
		appsRequests, rbacRequests, crdRequests, otherKindRequests,
		discoveryRequests, authRequests, admissionRequests,
		storagePolicyRequests, networkingCertificateRequests, namespaceRequests,
	} {
		all = append(all, part...)
	}
	return all
}

// setupRequests make the run's namespace and what the peer lacks for
// want of a controller manager: the namespace's default ServiceAccount
// (kubesim's controller may make it first: 409 is fine).
var setupRequests = []request{
	{name: "namespace-create", method: "POST", path: "/api/v1/namespaces",
		body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"{ns}","labels":{"diff":"yes"}}}`},
	{name: "setup-default-serviceaccount", setup: true, okCodes: []int{409}, method: "POST",
		path: "/api/v1/namespaces/{ns}/serviceaccounts",
		body: `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`},
}
