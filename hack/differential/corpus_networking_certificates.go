package main

// The URLs of networking's, certificates' and events.k8s.io's resources.
const (
	ingresses       = "/apis/networking.k8s.io/v1/namespaces/{ns}/ingresses"
	ingressClasses  = "/apis/networking.k8s.io/v1/ingressclasses"
	networkPolicies = "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies"
	csrs            = "/apis/certificates.k8s.io/v1/certificatesigningrequests"
	newEvents       = "/apis/events.k8s.io/v1/namespaces/{ns}/events"
)

// diffCSR is a certificate request for CN=diff-user, O=diff-group, made
// once with openssl for this corpus (its key is not kept).
const diffCSR = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQ2JqQ0NBVllDQVFBd0tURVNNQkFHQTFVRUF3d0paR2xtWmkxMWMyVnlNUk13RVFZRFZRUUtEQXBrYVdabQpMV2R5YjNWd01JSUJJakFOQmdrcWhraUc5dzBCQVFFRkFBT0NBUThBTUlJQkNnS0NBUUVBczlGUEpPUW83cS8rCkpJQ1EzVUdmZDFObFBnc2pVOVN3VWRkRE5yaWN6empueml2OWxpVWJwd0gvVW1GNnFHY0NZQWNhVVBEbC80bnAKQzRGVkUyTTI5NWt4V2lQV24vKzZldU5DUGN3V1NuRlg0TFJQZHpCSk1kdjA4b0s2M3hiZy90aXVyL0hpV1pEYQp3UklyUzFNWWg0d3hENHBDRC9iZ0kzdWxBWUswNGxuV3ZYQjJiNTl3WEdZMSs0a3duVkYzWHpiaExnL1dnNGRyCm42RDY0anAxVit6SnhtaVhZNkwxMGp1KzM4UlpxcW9DNURoT3RHU3htdS9ibUFONkd0QmlmZUNaNTFPNlBBRWkKUUNpeno1d0ZJRjZQc1pNUm41OFBWVHhaZ2RxYVpicnhNakZQTWRONnVhL3pNY0RjTS8xL1VEdW96UG4wNlVnWApXQTlKYVgwUTFRSURBUUFCb0FBd0RRWUpLb1pJaHZjTkFRRUxCUUFEZ2dFQkFBdloxMkhja2YwWnI1ZTlVRnhGCmdMMElUZG0ycm13RHFGRnFlL3EyUkswckptN2tPczExU0tFMG5MczhMSXF0M1VibDN0ZW80YTZGTVF1MUhtdmoKL2tISXAzaUFNaVhMc3p0KzhXZmEwWXhDcWNyR1psNFJCYUV4OXRYYnVqK1ZYVnBNa0Zkd1h1aEpNTGdKYzJqNQpIeFRGeFYxeFozV0h3eUFvQkFlRzIvWTZ6aHg3aWtkOEFkdVZzLzFNVkZUellsaXFwWGN6RG1jMkk4aTRVQmtqCi9vRklwS2NrYlFWTG1xb1NsTkdiZGpnSzAvMVlQRlAyaVI0Mlo4RzVZcXI0bWFoR0NKZjJoMDU1WVZCTVFNSGYKdzdlYlhKb1p4MmZKZ0hwbHBNd1pFb3Q4eHNZTFZsMTVIUjYxMSt6SUEwc25hY0hudXloZmFKeHRmWHdJd1JsSgpTYXM9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo="

// signed is why a CSR's certificate is left out: kubesim's signer (the
// controller manager's csrsigning) issues it, the peer runs none.
const signed = "kubesim's controller manager signs approved requests; the peer runs none"

// networkingCertificateRequests are networking.k8s.io's objects (served
// and validated; no traffic), CertificateSigningRequests with their
// approval, events.k8s.io/v1 and componentstatuses.
var networkingCertificateRequests = []request{
	{name: "ingressclass-create", method: "POST", path: ingressClasses,
		body: `{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"diff-{id}-ic","labels":{"diff":"yes"}},"spec":{"controller":"example.com/ingress"}}`},
	{name: "ingress-create", method: "POST", path: ingresses,
		body:   `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"in1","labels":{"diff":"yes"}},"spec":{"ingressClassName":"diff-{id}-ic","rules":[{"host":"diff.example.com","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"s1","port":{"number":80}}}}]}}]}}`,
		values: []string{"spec.rules[].http.paths[].pathType"}},
	{name: "ingress-create-invalid", method: "POST", path: ingresses,
		body: `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","metadata":{"name":"in2"},"spec":{"rules":[{"host":"Bad_Host","http":{"paths":[{"path":"x","backend":{"service":{"name":"s1","port":{"number":80}}}}]}}]}}`},
	{name: "ingress-table", path: ingresses, accept: "application/json;as=Table;v=v1;g=meta.k8s.io"},
	{name: "ingress-delete", method: "DELETE", path: ingresses + "/in1"},
	{name: "ingressclass-delete", method: "DELETE", path: ingressClasses + "/diff-{id}-ic"},
	{name: "networkpolicy-create", method: "POST", path: networkPolicies,
		body:   `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np1","labels":{"diff":"yes"}},"spec":{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}}`,
		values: []string{"spec.policyTypes", "spec.ingress[].ports[].protocol"}},
	{name: "networkpolicy-create-invalid", method: "POST", path: networkPolicies,
		body: `{"apiVersion":"networking.k8s.io/v1","kind":"NetworkPolicy","metadata":{"name":"np2"},"spec":{"podSelector":{},"policyTypes":["Sideways"]}}`},
	{name: "networkpolicy-delete", method: "DELETE", path: networkPolicies + "/np1"},

	{name: "csr-create", method: "POST", path: csrs,
		body:   `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"diff-{id}-csr","labels":{"diff":"yes"}},"spec":{"request":"` + diffCSR + `","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]}}`,
		values: []string{"spec.signerName", "spec.usages"}},
	{name: "csr-create-invalid-signer", method: "POST", path: csrs,
		body: `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"diff-{id}-bad"},"spec":{"request":"` + diffCSR + `","signerName":"bad","usages":["client auth"]}}`},
	{name: "csr-approve", method: "PUT", path: csrs + "/diff-{id}-csr/approval",
		body:   `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"diff-{id}-csr"},"spec":{"request":"` + diffCSR + `","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]},"status":{"conditions":[{"type":"Approved","status":"True","reason":"DiffApprove","message":"approved by the differential run"}]}}`,
		values: []string{"status.conditions[].type", "status.conditions[].reason"}, ignore: map[string]string{"status.certificate": signed}},
	{name: "csr-delete", method: "DELETE", path: csrs + "/diff-{id}-csr", ignore: map[string]string{"status.certificate": signed}},

	{name: "events-v1-create", method: "POST", path: newEvents,
		body:   `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev1","labels":{"diff":"yes"}},"eventTime":"2026-01-02T03:04:05.000000Z","reportingController":"example.com/diff","reportingInstance":"diff-1","action":"Diffing","reason":"Diffed","type":"Normal","note":"a note","regarding":{"kind":"Pod","namespace":"{ns}","name":"x"}}`,
		values: []string{"note", "regarding.name", "type"}},
	{name: "events-v1-as-core", path: "/api/v1/namespaces/{ns}/events/ev1", values: []string{"message", "reason", "involvedObject.name", "source"}},
	{name: "events-v1-create-invalid", method: "POST", path: newEvents,
		body: `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"ev2"},"reason":"Diffed","type":"Odd"}`},
	{name: "events-v1-delete", method: "DELETE", path: newEvents + "/ev1"},

	// Upstream lists componentstatuses in the order its concurrent probes
	// answer, which changes between requests: only the shape is compared.
	{name: "componentstatuses", path: "/api/v1/componentstatuses"},
}
