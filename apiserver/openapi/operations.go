package openapi

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// identifier turns s into an operation-id fragment: letters, digits (not
// first) and underscores are kept, anything else is dropped and upper-cases
// the letter after it. "rbac.authorization" -> "rbacAuthorization".
func identifier(s string, capitalizeFirst bool) string {
	var b strings.Builder
	upper := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i != 0 && unicode.IsDigit(r)) {
			if upper {
				r = unicode.ToUpper(r)
				upper = false
			}
			b.WriteRune(r)
		} else {
			upper = true
		}
	}
	return b.String()
}

// operationNaming gives the operation id and tag of a group-version the way
// kube-apiserver does: the verb, then the group without ".k8s.io" ("core"
// for the legacy group), the version, and the rest of the operation name:
// listCoreV1NamespacedPod, readCoordinationV1NamespacedLease; tag core_v1.
func operationNaming(gv schema.GroupVersion) (id func(verb, rest string) string, tag string) {
	group := strings.TrimSuffix(gv.Group, ".k8s.io")
	if gv.Group == "" {
		group = "core"
	}
	tag = identifier(group, false) + "_" + identifier(gv.Version, false)
	gvPart := identifier(group, true) + identifier(gv.Version, true)
	return func(verb, rest string) string { return verb + gvPart + identifier(rest, true) }, tag
}

// buildDocument assembles the OpenAPI v3 document of one group-version.
func buildDocument(gv schema.GroupVersion, resources []Resource, q *queryParamSets, version string,
	gvksFor func(schema.GroupVersion, reflect.Type) []schema.GroupVersionKind) (*spec3.OpenAPI, error) {
	routes, err := routesFor(gv, resources, q)
	if err != nil {
		return nil, err
	}
	sb := newSchemaBuilder(func(t reflect.Type) []schema.GroupVersionKind { return gvksFor(gv, t) })
	opID, tag := operationNaming(gv)

	byPath := map[string][]route{}
	for _, rt := range routes {
		byPath[rt.path] = append(byPath[rt.path], rt)
	}
	paths := map[string]*spec3.Path{}
	for path, rts := range byPath {
		item := &spec3.Path{}
		common := commonParams(rts)
		for _, p := range rts[0].params {
			if common[paramKey(p)] {
				item.Parameters = append(item.Parameters, p)
			}
		}
		sortParams(item.Parameters)
		for _, rt := range rts {
			op, err := buildOperation(rt, common, opID, tag, sb)
			if err != nil {
				return nil, err
			}
			var slot **spec3.Operation
			switch rt.method {
			case "GET":
				slot = &item.Get
			case "POST":
				slot = &item.Post
			case "PUT":
				slot = &item.Put
			case "PATCH":
				slot = &item.Patch
			case "DELETE":
				slot = &item.Delete
			}
			if *slot != nil {
				return nil, fmt.Errorf("two %s operations on %s (%s and %s)", rt.method, path, (*slot).OperationId, op.OperationId)
			}
			*slot = op
		}
		paths[path] = item
	}

	return &spec3.OpenAPI{
		Version: "3.0.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: version}},
		Paths:   &spec3.Paths{Paths: paths},
		Components: &spec3.Components{
			Schemas:         sb.schemas,
			SecuritySchemes: bearerTokenScheme(),
		},
	}, nil
}

// bearerTokenScheme is the security scheme every OpenAPI v3 document of
// kube-apiserver declares, as its v2 document does (swaggerFrom).
func bearerTokenScheme() spec3.SecuritySchemes {
	return spec3.SecuritySchemes{bearerToken: &spec3.SecurityScheme{SecuritySchemeProps: spec3.SecuritySchemeProps{
		Type: "apiKey", Description: "Bearer Token authentication", Name: "authorization", In: "header",
	}}}
}

// paramID tells parameters apart: by name and place (path or query).
type paramID struct{ name, in string }

// paramKey is the paramID of p.
func paramKey(p *spec3.Parameter) paramID { return paramID{p.Name, p.In} }

// commonParams finds the parameters every operation of a path has; like
// kube-apiserver, the document lists those once, on the path.
func commonParams(rts []route) map[paramID]bool {
	count := map[paramID]int{}
	for _, rt := range rts {
		for _, p := range rt.params {
			count[paramKey(p)]++
		}
	}
	common := map[paramID]bool{}
	for k, n := range count {
		if n == len(rts) {
			common[k] = true
		}
	}
	return common
}

// sortParams orders ps by name, then place, as kube-apiserver lists them.
func sortParams(ps []*spec3.Parameter) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Name != ps[j].Name {
			return ps[i].Name < ps[j].Name
		}
		return ps[i].In < ps[j].In
	})
}

// buildOperation turns rt into the operation placed on its path: its id
// and tag, the parameters not in common (those are on the path), the body
// and responses as references to component schemas sb defines, and the
// x-kubernetes-action and x-kubernetes-group-version-kind extensions.
func buildOperation(rt route, common map[paramID]bool, opID func(verb, rest string) string, tag string, sb *schemaBuilder) (*spec3.Operation, error) {
	op := &spec3.Operation{OperationProps: spec3.OperationProps{
		Tags:        []string{tag},
		Description: rt.description,
		OperationId: opID(rt.verb, rt.rest),
		Responses:   &spec3.Responses{ResponsesProps: spec3.ResponsesProps{StatusCodeResponses: map[int]*spec3.Response{}}},
	}}
	for _, p := range rt.params {
		if !common[paramKey(p)] {
			op.Parameters = append(op.Parameters, p)
		}
	}
	sortParams(op.Parameters)
	if rt.body != nil {
		ref, err := sb.refTo(rt.body.model)
		if err != nil {
			return nil, err
		}
		rb := &spec3.RequestBody{RequestBodyProps: spec3.RequestBodyProps{Content: map[string]*spec3.MediaType{}, Required: rt.body.required}}
		for _, ct := range rt.body.contentTypes {
			rb.Content[ct] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: ref}}
		}
		op.RequestBody = rb
	}
	for _, resp := range rt.responses {
		ref, err := sb.refTo(resp.model)
		if err != nil {
			return nil, err
		}
		r := &spec3.Response{ResponseProps: spec3.ResponseProps{Description: resp.description, Content: map[string]*spec3.MediaType{}}}
		for _, mt := range resp.mediaTypes {
			r.Content[mt] = &spec3.MediaType{MediaTypeProps: spec3.MediaTypeProps{Schema: ref}}
		}
		op.Responses.StatusCodeResponses[resp.code] = r
	}
	if rt.action != "" {
		op.AddExtension(extAction, rt.action)
	}
	if rt.gvk != nil {
		op.AddExtension(extGVK, map[string]any{"group": rt.gvk.Group, "version": rt.gvk.Version, "kind": rt.gvk.Kind})
	}
	return op, nil
}
