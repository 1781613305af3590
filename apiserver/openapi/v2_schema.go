package openapi

import (
	"reflect"
	"slices"
	"strings"

	"k8s.io/kube-openapi/pkg/validation/spec"
)

// v2Schema rewrites a v3 schema, and every schema inside it, for Swagger
// 2.0, which has a smaller schema vocabulary:
//
//   - references to #/components/schemas/X point to #/definitions/X;
//   - a field schema whose only allOf entry is a reference (the v3 way of
//     giving a $ref a description or default) becomes that $ref with its
//     siblings, as kube-apiserver's v2 document writes it;
//   - oneOf, anyOf and not, which v2 lacks, are dropped. A oneOf of JSON
//     types (IntOrString: integer or string; Quantity: string or number)
//     leaves type string behind, the type upstream's v2 document gives
//     those values;
//   - nullable, patternProperties and additionalItems, unknown to v2
//     readers such as gnostic's, are dropped.
//
// Descriptions, defaults, formats and x- extensions stay as they are.
func v2Schema(s spec.Schema) spec.Schema {
	s.Ref = v2Ref(s.Ref)
	if len(s.AllOf) == 1 && s.Ref.String() == "" && isBareRef(s.AllOf[0]) {
		s.Ref = v2Ref(s.AllOf[0].Ref)
		s.AllOf = nil
	}
	if len(s.Type) == 0 && s.Ref.String() == "" && primitiveOneOf(s.OneOf) {
		s.Type = spec.StringOrArray{"string"}
	}
	s.OneOf, s.AnyOf, s.Not = nil, nil, nil
	s.Nullable = false
	s.PatternProperties, s.AdditionalItems = nil, nil
	s.AllOf = v2Schemas(s.AllOf)
	if s.Properties != nil {
		props := make(map[string]spec.Schema, len(s.Properties))
		for k, p := range s.Properties {
			props[k] = v2Schema(p)
		}
		s.Properties = props
	}
	if s.Items != nil {
		items := &spec.SchemaOrArray{Schemas: v2Schemas(s.Items.Schemas)}
		if s.Items.Schema != nil {
			one := v2Schema(*s.Items.Schema)
			items.Schema = &one
		}
		s.Items = items
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		one := v2Schema(*ap.Schema)
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: ap.Allows, Schema: &one}
	}
	if s.Definitions != nil {
		defs := make(spec.Definitions, len(s.Definitions))
		for k, d := range s.Definitions {
			defs[k] = v2Schema(d)
		}
		s.Definitions = defs
	}
	return s
}

func v2Schemas(ss []spec.Schema) []spec.Schema {
	if ss == nil {
		return nil
	}
	out := make([]spec.Schema, len(ss))
	for i, s := range ss {
		out[i] = v2Schema(s)
	}
	return out
}

// v2Ref moves a component schema reference to the definitions.
func v2Ref(r spec.Ref) spec.Ref {
	name, ok := strings.CutPrefix(r.String(), schemaRefPrefix)
	if !ok {
		return r
	}
	return spec.MustCreateRef(definitionRefPrefix + name)
}

// isBareRef reports whether s is a reference and nothing else.
func isBareRef(s spec.Schema) bool {
	if s.Ref.String() == "" {
		return false
	}
	return reflect.DeepEqual(s, spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}})
}

// primitiveOneOf reports whether every alternative of oneOf is just a JSON
// type, one of them string.
func primitiveOneOf(oneOf []spec.Schema) bool {
	hasString := false
	for _, alt := range oneOf {
		if len(alt.Type) != 1 || alt.Ref.String() != "" || len(alt.Properties) > 0 {
			return false
		}
		hasString = hasString || alt.Type[0] == "string"
	}
	return hasString && !slices.ContainsFunc(oneOf, func(a spec.Schema) bool { return a.Format != "" })
}
