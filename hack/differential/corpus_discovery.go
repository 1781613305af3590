package main

// aggregated is the Accept header of aggregated discovery (v2).
const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"

// discoveryRequests are discovery, version, health and OpenAPI. The
// OpenAPI documents are compared only two levels deep: their content is
// each server's schema, not the point here.
var discoveryRequests = []request{
	{name: "discovery-api", path: "/api", values: []string{"kind", "versions"}},
	{name: "discovery-apis", path: "/apis", values: []string{"kind"}},
	{name: "discovery-apps", path: "/apis/apps", values: []string{"kind", "name", "versions[].groupVersion", "preferredVersion.version"}},
	{name: "discovery-apps-v1", path: "/apis/apps/v1", values: []string{"kind", "groupVersion", "resources[].name"}},
	{name: "discovery-core-v1-configmaps", path: "/api/v1", values: []string{"kind", "groupVersion"}},
	{name: "discovery-aggregated-api", path: "/api", accept: aggregated, values: []string{"kind", "apiVersion"}},
	{name: "discovery-aggregated-apis", path: "/apis", accept: aggregated, values: []string{"kind", "apiVersion"}},
	{name: "discovery-aggregated-unknown-version", path: "/apis", accept: "application/json;g=apidiscovery.k8s.io;v=v9;as=APIGroupDiscoveryList"},
	{name: "version", path: "/version", values: []string{"major", "minor", "gitVersion", "platform"}},
	{name: "healthz", path: "/healthz", accept: "*/*"},
	{name: "livez", path: "/livez", accept: "*/*"},
	{name: "readyz-verbose", path: "/readyz?verbose", accept: "*/*"},
	{name: "healthz-one-check", path: "/healthz/ping", accept: "*/*"},
	{name: "healthz-unknown-check", path: "/healthz/nope", accept: "*/*"},
	{name: "openapi-v2", path: "/openapi/v2", depth: 1, values: []string{"swagger", "info.title"}},
	{name: "openapi-v3", path: "/openapi/v3", depth: 2},
	{name: "openapi-v3-apps-v1", path: "/openapi/v3/apis/apps/v1", depth: 2, values: []string{"openapi", "info.title"}},
	{name: "openapi-v3-unknown", path: "/openapi/v3/apis/nope/v1"},
	{name: "metrics", path: "/metrics", accept: "*/*", codeOnly: true},
}
