// Package openapi publishes OpenAPI v3 documents for the resources the API
// server serves, at /openapi/v3, in the form kube-apiserver publishes them.
//
// Clients depend on them. kubectl apply and create look in the document of
// a group-version for the PATCH operation of the kind (matched by its
// x-kubernetes-group-version-kind) and, when it takes a fieldValidation
// query parameter, leave validation to the server (?fieldValidation=Strict).
// kubectl apply on an existing object checks that the same operation accepts
// application/strategic-merge-patch+json and then computes a three-way
// strategic merge patch from the component schema of the kind, whose
// x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key extensions
// say how lists merge (containers by name, ports by containerPort ...).
// kubectl explain renders descriptions and field types from the same
// schemas.
//
// The paths and operations follow kube-apiserver's installer: operation
// ids such as listCoreV1NamespacedPod or patchCoreV1NamespacedPodStatus,
// x-kubernetes-action, the standard query parameters and, for the legacy
// watch URLs, /watch/ paths. routes.go lists the operations a resource's
// verbs give, params.go their parameters, operations.go names them and
// places them on their paths. The schemas are made by reflection from the
// Go types (json tags, inlined structs, SwaggerDoc descriptions, patch
// tags); see schema.go for the rules and the one approximation (required
// fields). Their responses list JSON only, the one form this server
// answers in.
//
// New builds every document once; Handler serves them, with the hash,
// ETag and redirect behaviour of kube-openapi's handler3, and is safe for
// concurrent use.
package openapi
