package openapi

import (
	"fmt"
	"sort"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// PathV2 is where V2Handler is mounted: one Swagger 2.0 document of every
// group-version, as kube-apiserver serves it.
const PathV2 = "/openapi/v2"

// definitionRefPrefix is where every named schema lives in a v2 document.
const definitionRefPrefix = "#/definitions/"

// bearerToken is the security scheme kube-apiserver declares: a bearer
// token in the Authorization header.
const bearerToken = "BearerToken"

// bearerTokenV2 is the v3 documents' bearer token scheme in v2's form.
func bearerTokenV2() *spec.SecurityScheme {
	v3 := bearerTokenScheme()[bearerToken].SecuritySchemeProps
	return &spec.SecurityScheme{SecuritySchemeProps: spec.SecuritySchemeProps{
		Description: v3.Description, Type: v3.Type, Name: v3.Name, In: v3.In,
	}}
}

// swaggerFrom merges the v3 documents, in the order given, into one
// Swagger 2.0 document: their paths, with operations and parameters in the
// v2 form, and their component schemas as definitions. A path or a
// definition two documents both have is taken from the first; of a
// definition the x-kubernetes-group-version-kind lists are joined, as
// kube-apiserver lists under DeleteOptions every group that registers it.
func swaggerFrom(docs []*spec3.OpenAPI, version string) (*spec.Swagger, error) {
	sw := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:             "2.0",
		Info:                &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: version}},
		Paths:               &spec.Paths{Paths: map[string]spec.PathItem{}},
		Definitions:         spec.Definitions{},
		SecurityDefinitions: spec.SecurityDefinitions{bearerToken: bearerTokenV2()},
		Security:            []map[string][]string{{bearerToken: {}}},
	}}
	for _, doc := range docs {
		if doc.Paths != nil {
			for path, item := range doc.Paths.Paths {
				if _, ok := sw.Paths.Paths[path]; ok || item == nil {
					continue
				}
				v2, err := v2PathItem(item, doc)
				if err != nil {
					return nil, fmt.Errorf("path %s: %w", path, err)
				}
				sw.Paths.Paths[path] = v2
			}
		}
		if doc.Components != nil {
			for name, s := range doc.Components.Schemas {
				if s != nil {
					addDefinition(sw.Definitions, name, v2Schema(*s))
				}
			}
		}
	}
	return sw, nil
}

// addDefinition adds s as definition name, or joins its kinds to those of
// the definition already there.
func addDefinition(defs spec.Definitions, name string, s spec.Schema) {
	old, ok := defs[name]
	if !ok {
		defs[name] = s
		return
	}
	joined := joinGVKs(old.Extensions[extGVK], s.Extensions[extGVK])
	if len(joined) == 0 {
		return
	}
	ext := spec.Extensions{}
	for k, v := range old.Extensions {
		ext[k] = v
	}
	ext[extGVK] = joined
	old.Extensions = ext
	defs[name] = old
}

// joinGVKs is the sorted union of two x-kubernetes-group-version-kind
// values, each a list of {group, version, kind} objects.
func joinGVKs(a, b any) []any {
	type gvk struct{ g, v, k string }
	seen := map[gvk]any{}
	for _, list := range []any{a, b} {
		items, _ := list.([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			g, _ := m["group"].(string)
			v, _ := m["version"].(string)
			k, _ := m["kind"].(string)
			seen[gvk{g, v, k}] = it
		}
	}
	keys := make([]gvk, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].g != keys[j].g {
			return keys[i].g < keys[j].g
		}
		if keys[i].v != keys[j].v {
			return keys[i].v < keys[j].v
		}
		return keys[i].k < keys[j].k
	})
	out := make([]any, 0, len(keys))
	for _, k := range keys {
		out = append(out, seen[k])
	}
	return out
}
