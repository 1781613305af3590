package openapi

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// v2PathItem turns a v3 path item into its v2 form: the same operations
// and the same parameters common to them.
func v2PathItem(item *spec3.Path, doc *spec3.OpenAPI) (spec.PathItem, error) {
	var out spec.PathItem
	var err error
	if out.Parameters, err = v2Parameters(item.Parameters, doc); err != nil {
		return out, err
	}
	for _, slot := range []struct {
		v3 *spec3.Operation
		v2 **spec.Operation
	}{
		{item.Get, &out.Get}, {item.Put, &out.Put}, {item.Post, &out.Post},
		{item.Delete, &out.Delete}, {item.Patch, &out.Patch},
		{item.Head, &out.Head}, {item.Options, &out.Options},
	} {
		if slot.v3 == nil {
			continue
		}
		op, err := v2Operation(slot.v3, doc)
		if err != nil {
			return out, fmt.Errorf("%s: %w", slot.v3.OperationId, err)
		}
		*slot.v2 = op
	}
	return out, nil
}

// v2Operation is op in the v2 form: the request body becomes the body
// parameter and its media types the consumes list (*/* for an operation
// without a body, as kube-apiserver writes it); the media types of the
// responses become produces; each response carries its schema directly.
func v2Operation(op *spec3.Operation, doc *spec3.OpenAPI) (*spec.Operation, error) {
	out := &spec.Operation{OperationProps: spec.OperationProps{
		Description: op.Description,
		Summary:     op.Summary,
		Tags:        op.Tags,
		ID:          op.OperationId,
		Deprecated:  op.Deprecated,
		Schemes:     []string{"https"},
		Consumes:    []string{"*/*"},
	}}
	out.Extensions = copyExtensions(op.Extensions)
	params, err := v2Parameters(op.Parameters, doc)
	if err != nil {
		return nil, err
	}
	if rb := op.RequestBody; rb != nil {
		ref, types := firstSchema(rb.Content)
		out.Consumes = types
		params = append(params, spec.Parameter{ParamProps: spec.ParamProps{
			Name: "body", In: "body", Required: rb.Required, Schema: ref,
		}})
	}
	sortV2Params(params)
	out.Parameters = params
	if op.Responses != nil {
		out.Responses = &spec.Responses{ResponsesProps: spec.ResponsesProps{StatusCodeResponses: map[int]spec.Response{}}}
		produces := map[string]bool{}
		for code, r := range op.Responses.StatusCodeResponses {
			if r == nil {
				continue
			}
			ref, types := firstSchema(r.Content)
			for _, t := range types {
				produces[t] = true
			}
			out.Responses.StatusCodeResponses[code] = spec.Response{ResponseProps: spec.ResponseProps{Description: r.Description, Schema: ref}}
		}
		for t := range produces {
			out.Produces = append(out.Produces, t)
		}
		sort.Strings(out.Produces)
	}
	return out, nil
}

// firstSchema returns the schema of the content (every media type of one
// body or response has the same), in its v2 form, and the media types,
// sorted.
func firstSchema(content map[string]*spec3.MediaType) (*spec.Schema, []string) {
	types := make([]string, 0, len(content))
	for t := range content {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		if mt := content[t]; mt != nil && mt.Schema != nil {
			s := v2Schema(*mt.Schema)
			return &s, types
		}
	}
	return nil, types
}

// v2Parameters converts path and query parameters. A v3 parameter given by
// reference is looked up among the document's components first.
func v2Parameters(ps []*spec3.Parameter, doc *spec3.OpenAPI) ([]spec.Parameter, error) {
	var out []spec.Parameter
	for _, p := range ps {
		if p == nil {
			continue
		}
		if ref := p.Ref.String(); ref != "" {
			name := strings.TrimPrefix(ref, "#/components/parameters/")
			var found *spec3.Parameter
			if doc.Components != nil {
				found = doc.Components.Parameters[name]
			}
			if found == nil {
				return nil, fmt.Errorf("parameter %s is not among the components", ref)
			}
			p = found
		}
		out = append(out, v2Parameter(p))
	}
	return out, nil
}

// v2Parameter is a non-body parameter in the v2 form: the type, format and
// uniqueItems of its schema sit on the parameter itself.
func v2Parameter(p *spec3.Parameter) spec.Parameter {
	out := spec.Parameter{ParamProps: spec.ParamProps{
		Name: p.Name, In: p.In, Description: p.Description, Required: p.Required, AllowEmptyValue: p.AllowEmptyValue,
	}}
	out.Extensions = copyExtensions(p.Extensions)
	if s := p.Schema; s != nil {
		if len(s.Type) > 0 {
			out.Type = s.Type[0]
		}
		out.Format = s.Format
		out.UniqueItems = s.UniqueItems
		out.Enum = s.Enum
		out.Default = s.Default
		if s.Items != nil && s.Items.Schema != nil && len(s.Items.Schema.Type) > 0 {
			out.Items = &spec.Items{SimpleSchema: spec.SimpleSchema{Type: s.Items.Schema.Type[0], Format: s.Items.Schema.Format}}
		}
	}
	return out
}

// sortV2Params orders parameters by name, then place, as kube-openapi's
// builder does.
func sortV2Params(ps []spec.Parameter) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Name != ps[j].Name {
			return ps[i].Name < ps[j].Name
		}
		return ps[i].In < ps[j].In
	})
}

func copyExtensions(ext spec.Extensions) spec.Extensions {
	if len(ext) == 0 {
		return nil
	}
	out := spec.Extensions{}
	for k, v := range ext {
		out[k] = v
	}
	return out
}
