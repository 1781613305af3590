package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// Extension keys used by Kubernetes clients. kubectl reads the patch ones
// (strategicpatch.PatchMetaFromOpenAPIV3) and the GVK one (apply, explain,
// field validation).
const (
	extGVK           = "x-kubernetes-group-version-kind"
	extAction        = "x-kubernetes-action"
	extPatchStrategy = "x-kubernetes-patch-strategy"
	extPatchMergeKey = "x-kubernetes-patch-merge-key"
	extIntOrString   = "x-kubernetes-int-or-string"
)

// schemaRefPrefix is where every named schema lives in a v3 document.
const schemaRefPrefix = "#/components/schemas/"

// The optional methods that API types implement and that this file looks
// for. They are the same hooks the upstream OpenAPI generator uses.
type (
	// modelNamer gives the definition name (io.k8s.api.core.v1.Pod).
	modelNamer interface{ OpenAPIModelName() string }
	// swaggerDocer gives descriptions: "" for the type, json names for fields.
	swaggerDocer interface{ SwaggerDoc() map[string]string }
	// schemaTyper marks a type that serializes as a JSON primitive although
	// it is a Go struct (Time, Quantity, IntOrString, Duration ...).
	schemaTyper interface {
		OpenAPISchemaType() []string
		OpenAPISchemaFormat() string
	}
	// oneOfTyper lists the JSON types a primitive-like type accepts in v3.
	oneOfTyper interface{ OpenAPIV3OneOfTypes() []string }
)

var (
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	byteSliceType       = reflect.TypeFor[[]byte]()
)

// fallbackDocs describes the types (key "<model>") and fields (key
// "<model>.<json name>") that have no SwaggerDoc method. The wording is ours.
var fallbackDocs = map[string]string{
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time":              "Time is a point in time, written as an RFC 3339 string with second precision, for example 2024-05-01T12:00:00Z.",
	"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":         "MicroTime is a point in time, written as an RFC 3339 string with microsecond precision, for example 2024-05-01T12:00:00.000123Z.",
	"io.k8s.apimachinery.pkg.apis.meta.v1.Duration":          "Duration is a length of time written as a Go duration string, for example 90s or 1h30m.",
	"io.k8s.apimachinery.pkg.api.resource.Quantity":          "Quantity is an exact decimal amount with an optional unit suffix: decimal SI (m, k, M, G, T, P, E), binary SI (Ki, Mi, Gi, Ti, Pi, Ei) or an exponent (e3). Examples: 250m, 0.5, 128Mi, 2Gi. It is written as a string; a plain JSON number is accepted too.",
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString":        "IntOrString holds either a 32-bit integer or a string and is written as the bare value, for example 8080 or \"http\".",
	"io.k8s.apimachinery.pkg.runtime.RawExtension":           "RawExtension carries an embedded API object (with its own apiVersion and kind) as raw JSON.",
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent":        "WatchEvent is one event of a watch stream: what happened, and the object it happened to.",
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent.type":   "The kind of event: ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
	"io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent.object": "The object of the event: its new state for ADDED and MODIFIED, its last state for DELETED, only the resourceVersion for BOOKMARK, and usually a Status for ERROR.",
}

// modelName returns the definition name of a named Go type: the type's own
// OpenAPIModelName when it has one, otherwise the package path with its
// domain reversed plus the type name (k8s.io/api/core/v1.Pod becomes
// io.k8s.api.core.v1.Pod), the rule kube-apiserver uses.
func modelName(t reflect.Type) (string, error) {
	if n, ok := reflect.New(t).Interface().(modelNamer); ok {
		if name := n.OpenAPIModelName(); name != "" {
			return name, nil
		}
	}
	if t.Name() == "" || t.PkgPath() == "" {
		return "", fmt.Errorf("type %v has no name to give its schema", t)
	}
	segments := strings.Split(t.PkgPath(), "/")
	if domain := strings.Split(segments[0], "."); len(domain) > 1 {
		for i, j := 0, len(domain)-1; i < j; i, j = i+1, j-1 {
			domain[i], domain[j] = domain[j], domain[i]
		}
		segments[0] = strings.Join(domain, ".")
	}
	return strings.Join(segments, ".") + "." + t.Name(), nil
}

// docsOf returns the SwaggerDoc map of t, or nil.
func docsOf(t reflect.Type) map[string]string {
	if d, ok := reflect.New(t).Interface().(swaggerDocer); ok {
		return d.SwaggerDoc()
	}
	return nil
}

// isPrimitiveLike reports whether t is a struct that serializes as a JSON
// primitive and so gets a primitive schema instead of properties.
func isPrimitiveLike(t reflect.Type) bool {
	_, ok := reflect.New(t).Interface().(schemaTyper)
	return ok
}

// schemaBuilder collects the component schemas of one document. It is used
// by one goroutine, during New.
type schemaBuilder struct {
	// gvksFor returns the x-kubernetes-group-version-kind list of a type.
	gvksFor func(reflect.Type) []schema.GroupVersionKind
	schemas map[string]*spec.Schema
	owners  map[string]reflect.Type // definition name -> Go type, to catch clashes
}

func newSchemaBuilder(gvksFor func(reflect.Type) []schema.GroupVersionKind) *schemaBuilder {
	return &schemaBuilder{
		gvksFor: gvksFor,
		schemas: map[string]*spec.Schema{},
		owners:  map[string]reflect.Type{},
	}
}

// refTo defines the schema of the Go type of v (and everything it reaches)
// and returns a bare $ref to it. v may be a value or a pointer.
func (b *schemaBuilder) refTo(v any) (*spec.Schema, error) {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name, err := b.define(t)
	if err != nil {
		return nil, err
	}
	return refSchema(name), nil
}

func refSchema(name string) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Ref: spec.MustCreateRef(schemaRefPrefix + name)}}
}

// define adds the definition of the named type t (a struct) to the document
// once and returns its name.
func (b *schemaBuilder) define(t reflect.Type) (string, error) {
	name, err := modelName(t)
	if err != nil {
		return "", err
	}
	if owner, ok := b.owners[name]; ok {
		if owner != t {
			return "", fmt.Errorf("types %v and %v both want the schema name %s", owner, t, name)
		}
		return name, nil // defined, or being defined further up (a cycle)
	}
	b.owners[name] = t

	var s *spec.Schema
	if isPrimitiveLike(t) {
		s = primitiveLikeSchema(t)
	} else if t.Kind() == reflect.Struct {
		if s, err = b.structSchema(t, name); err != nil {
			return "", err
		}
	} else {
		return "", fmt.Errorf("cannot define a schema for %v (kind %v)", t, t.Kind())
	}
	if s.Description == "" {
		s.Description = fallbackDocs[name]
	}
	if gvks := b.gvksFor(t); len(gvks) > 0 {
		list := make([]any, 0, len(gvks))
		for _, gvk := range gvks {
			list = append(list, map[string]any{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
		}
		s.AddExtension(extGVK, list)
	}
	b.schemas[name] = s
	return name, nil
}

// primitiveLikeSchema describes types such as Time or Quantity the way the
// upstream v3 documents do: the JSON type and format, or a oneOf of the JSON
// types the value may take.
func primitiveLikeSchema(t reflect.Type) *spec.Schema {
	v := reflect.New(t).Interface()
	st := v.(schemaTyper)
	s := &spec.Schema{}
	s.Description = docsOf(t)[""]
	s.Format = st.OpenAPISchemaFormat()
	if o, ok := v.(oneOfTyper); ok && len(o.OpenAPIV3OneOfTypes()) > 0 {
		for _, typ := range o.OpenAPIV3OneOfTypes() {
			s.OneOf = append(s.OneOf, spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}}})
		}
	} else {
		s.Type = st.OpenAPISchemaType()
	}
	if s.Format == "int-or-string" {
		// The structural-schema marker that CRD schemas use for the same
		// thing. Upstream's built-in documents rely on oneOf and the format
		// alone; the marker is added for clients that look for it.
		s.AddExtension(extIntOrString, true)
	}
	return s
}

// property is one JSON field of a struct while it is being collected.
type property struct {
	schema   spec.Schema
	required bool
	depth    int // 0 for the struct's own fields, 1+ for inlined ones
}

// structSchema builds an object schema from the exported fields of t,
// following encoding/json: json tag names, "-" skipped, anonymous structs
// without a json name inlined (TypeMeta in every kind).
func (b *schemaBuilder) structSchema(t reflect.Type, name string) (*spec.Schema, error) {
	props := map[string]*property{}
	var order []string
	if err := b.collectFields(t, name, 0, props, &order); err != nil {
		return nil, err
	}
	s := &spec.Schema{}
	s.Description = docsOf(t)[""]
	s.Type = spec.StringOrArray{"object"}
	for _, jsonName := range order {
		p := props[jsonName]
		if s.Properties == nil {
			s.Properties = map[string]spec.Schema{}
		}
		s.Properties[jsonName] = p.schema
		if p.required {
			s.Required = append(s.Required, jsonName)
		}
	}
	return s, nil
}

func (b *schemaBuilder) collectFields(t reflect.Type, model string, depth int, props map[string]*property, order *[]string) error {
	docs := docsOf(t)
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		jsonName, opts, _ := strings.Cut(tag, ",")
		if jsonName == "-" && opts == "" {
			continue
		}
		if f.Anonymous && jsonName == "" {
			et := f.Type
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				if err := b.collectFields(et, model, depth+1, props, order); err != nil {
					return fmt.Errorf("%v: %w", t, err)
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if !hasTag || jsonName == "" {
			jsonName = f.Name
		}
		if prev, ok := props[jsonName]; ok && prev.depth <= depth {
			continue // a shallower field of the same name wins, as in encoding/json
		}
		s, err := b.fieldSchema(f, opts, docs[jsonName], model+"."+jsonName)
		if err != nil {
			return fmt.Errorf("%v.%s: %w", t, f.Name, err)
		}
		if _, ok := props[jsonName]; !ok {
			*order = append(*order, jsonName)
		}
		props[jsonName] = &property{
			schema: s,
			// Approximation: upstream marks a field required unless its
			// comment says +optional or its json tag says omitempty; comments
			// are not visible at run time, so here a field is required when
			// it has no omitempty and is not a pointer.
			required: !hasOption(opts, "omitempty") && f.Type.Kind() != reflect.Pointer,
			depth:    depth,
		}
	}
	return nil
}

func hasOption(opts, want string) bool {
	for o := range strings.SplitSeq(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

// fieldSchema returns the schema of one struct field: its type's schema plus
// the description, the default the upstream generator enforces and the
// strategic-merge-patch extensions from the struct tags.
func (b *schemaBuilder) fieldSchema(f reflect.StructField, opts, doc, docKey string) (spec.Schema, error) {
	if doc == "" {
		doc = fallbackDocs[docKey]
	}
	var s spec.Schema
	if hasOption(opts, "string") {
		s.Type = spec.StringOrArray{"string"}
	} else {
		ts, err := b.typeSchema(f.Type)
		if err != nil {
			return s, err
		}
		s = *ts
	}
	s.Description = doc
	if !hasOption(opts, "string") {
		s.Default = enforcedDefault(f.Type, hasOption(opts, "omitempty"))
	}
	if v := f.Tag.Get("patchStrategy"); v != "" {
		s.AddExtension(extPatchStrategy, v)
	}
	if v := f.Tag.Get("patchMergeKey"); v != "" {
		s.AddExtension(extPatchMergeKey, v)
	}
	return wrapRef(s), nil
}

// wrapRef moves a $ref that has siblings (description, default, extensions)
// into allOf, because in OpenAPI 3.0 the siblings of a $ref are ignored.
// Upstream documents do the same; clients (PatchMetaFromOpenAPIV3, kubectl
// explain) follow allOf[0].
func wrapRef(s spec.Schema) spec.Schema {
	if s.Ref.String() == "" {
		return s
	}
	bare := spec.Schema{SchemaProps: spec.SchemaProps{Ref: s.Ref}}
	if reflect.DeepEqual(s, bare) {
		return s
	}
	s.Ref = spec.Ref{}
	s.AllOf = []spec.Schema{bare}
	return s
}

// typeSchema returns the schema for a value of type t: a $ref for structs
// and primitive-like types, an inline schema otherwise.
func (b *schemaBuilder) typeSchema(t reflect.Type) (*spec.Schema, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == byteSliceType || (t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8) {
		return simple("string", "byte"), nil // encoding/json writes []byte as base64
	}
	if t.Kind() == reflect.Struct || isPrimitiveLike(t) {
		name, err := b.define(t)
		if err != nil {
			return nil, err
		}
		return refSchema(name), nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return simple("boolean", ""), nil
	case reflect.String:
		return simple("string", ""), nil
	case reflect.Int, reflect.Int16, reflect.Int32, reflect.Uint, reflect.Uint16:
		return simple("integer", "int32"), nil
	case reflect.Int8, reflect.Uint8:
		return simple("integer", "byte"), nil
	case reflect.Int64, reflect.Uint32, reflect.Uint64:
		return simple("integer", "int64"), nil
	case reflect.Float32:
		return simple("number", "float"), nil
	case reflect.Float64:
		return simple("number", "double"), nil
	case reflect.Slice, reflect.Array:
		items, err := b.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		s := simple("array", "")
		s.Items = &spec.SchemaOrArray{Schema: items}
		return s, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key type %v is not a string", t.Key())
		}
		values, err := b.typeSchema(t.Elem())
		if err != nil {
			return nil, err
		}
		s := simple("object", "")
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: true, Schema: values}
		return s, nil
	case reflect.Interface:
		return &spec.Schema{}, nil // any JSON value
	}
	return nil, fmt.Errorf("unsupported type %v", t)
}

func simple(typ, format string) *spec.Schema {
	return &spec.Schema{SchemaProps: spec.SchemaProps{Type: spec.StringOrArray{typ}, Format: format}}
}

// enforcedDefault is the default the upstream generator writes for a field:
// {} for a struct value, the zero value for a primitive without omitempty,
// nothing for pointers, slices, maps and types with their own UnmarshalJSON
// (their zero value on the wire is null or a custom form).
func enforcedDefault(t reflect.Type, omitEmpty bool) any {
	if t.Kind() != reflect.Pointer && (t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType)) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.NumField() == 1 && t.Field(0).Anonymous {
			return enforcedDefault(t.Field(0).Type, omitEmpty)
		}
		return map[string]any{}
	case reflect.Bool:
		if !omitEmpty {
			return false
		}
	case reflect.String:
		if !omitEmpty {
			return ""
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if !omitEmpty {
			return 0
		}
	}
	return nil
}
