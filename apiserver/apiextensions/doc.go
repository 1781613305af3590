// Package apiextensions holds what kubesim's apiextensions server does
// with a CustomResourceDefinition that needs no HTTP machinery: checking
// a CRD as kube-apiserver does (Validate, ValidateUpdate), the names a
// CRD is granted next to the other CRDs of its group (AcceptNames), and,
// for each served version, the compiled structural schema that prunes
// unknown fields, applies defaults and validates a custom resource
// (Schema), the Table a kubectl get prints (TableConvertor) and the
// OpenAPI v3 document kubectl explain and kubectl's field validation read
// (OpenAPIDocument).
//
// The rules are upstream's: the functions here call the exported library
// code of k8s.io/apiextensions-apiserver (the structural schema, pruning,
// defaulting, the kube-openapi schema validator, CRD validation, the
// OpenAPI builder and the table convertor) on the published v1 types, so
// that the 422 causes, the pruned paths and the conditions a learner sees
// are the ones kube-apiserver produces. Differences are named where they
// are made: x-kubernetes-validations (CEL) rules are not evaluated, and
// conversion is always None (one storage version, apiVersion rewritten).
//
// Everything here is safe for concurrent use once built.
package apiextensions
