package apiextensions

import (
	"context"
	"fmt"
	"math"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Schema is the compiled OpenAPI v3 schema of one served version of a
// CRD, with what the version's custom resources need from it: pruning
// and coercion (Coerce), defaults (Default) and validation (Validate).
type Schema struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	validator  validation.SchemaValidator
	// scale is the version's scale subresource, if any: its replicas
	// paths are validated too.
	scale *apiextensionsv1.CustomResourceSubresourceScale
}

// NewSchema compiles the schema of version of crd (a CRD that passed
// Validate). A version without a schema gets one that preserves every
// field (a CRD kube-apiserver would not have accepted as v1).
func NewSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Schema, error) {
	var v *apiextensionsv1.CustomResourceDefinitionVersion
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == version {
			v = &crd.Spec.Versions[i]
		}
	}
	if v == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no version %q", crd.Name, version)
	}
	yes := true
	props := &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &yes}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		props = v.Schema.OpenAPIV3Schema
	}
	in, err := schemaToInternal(props)
	if err != nil {
		return nil, fmt.Errorf("%s %s: convert schema: %w", crd.Name, version, err)
	}
	ss, err := structuralschema.NewStructural(in)
	if err != nil {
		return nil, fmt.Errorf("%s %s: structural schema: %w", crd.Name, version, err)
	}
	// As upstream's handler: defaults that pruning would drop are dropped.
	if err := structuraldefaulting.PruneDefaults(ss); err != nil {
		return nil, fmt.Errorf("%s %s: defaults: %w", crd.Name, version, err)
	}
	validator, _, err := validation.NewSchemaValidator(in)
	if err != nil {
		return nil, fmt.Errorf("%s %s: validator: %w", crd.Name, version, err)
	}
	s := &Schema{gvk: schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind},
		structural: ss, validator: validator}
	if v.Subresources != nil {
		s.scale = v.Subresources.Scale
	}
	return s, nil
}

// Coerce does to a custom resource what upstream's decoder does after
// JSON decoding (unstructuredSchemaCoercer): it drops every field the
// schema does not specify (unless x-kubernetes-preserve-unknown-fields
// keeps it), drops nulls of non-nullable fields without a default, and
// coerces metadata to ObjectMeta (dropping what does not fit). It returns
// the paths of the fields it dropped when track is set (what
// fieldValidation=Strict rejects and Warn warns about, as
// `unknown field "spec.foo"`). Objects of another group or kind (options
// decoded on the same path) are left alone.
func (s *Schema) Coerce(obj map[string]any, track bool) ([]string, error) {
	u := unstructured.Unstructured{Object: obj}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	om, found, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: track})
	if err != nil {
		return nil, err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	if gv.Group == s.gvk.Group && kind == s.gvk.Kind {
		unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s.structural, true,
			structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: track})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false,
			schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: track})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, paths...)
	}
	if kind != "" {
		u.SetKind(kind)
	}
	if apiVersion != "" {
		u.SetAPIVersion(apiVersion)
	}
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, om); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// Default applies the schema's defaults to obj, as upstream does on
// decoding a request and on reading from storage. It returns the
// top-level paths it filled in ("spec.size"), for the trace.
func (s *Schema) Default(obj map[string]any) []string {
	before := flatten("", obj)
	structuraldefaulting.Default(obj, s.structural)
	var set []string
	for path, v := range flatten("", obj) {
		if _, had := before[path]; !had {
			set = append(set, path+"="+v)
		}
	}
	sortStrings(set)
	return set
}

// Validate checks a custom resource against the schema as upstream's
// strategy does: apiVersion and kind, the OpenAPI schema (types,
// required, enum, minimum/maximum, pattern, maxLength... with
// kube-openapi's messages), the embedded resources' metadata, the list
// types' uniqueness, and the scale subresource's replicas paths. CEL
// rules (x-kubernetes-validations) are not evaluated by kubesim.
func (s *Schema) Validate(ctx context.Context, u *unstructured.Unstructured) field.ErrorList {
	var errs field.ErrorList
	if u.GetKind() != s.gvk.Kind {
		errs = append(errs, field.Invalid(field.NewPath("kind"), u.GetKind(), "must be "+s.gvk.Kind))
	}
	if want := s.gvk.GroupVersion().String(); u.GetAPIVersion() != want {
		errs = append(errs, field.Invalid(field.NewPath("apiVersion"), u.GetAPIVersion(), "must be "+want))
	}
	if len(errs) > 0 {
		return errs
	}
	errs = append(errs, validation.ValidateCustomResource(nil, u.UnstructuredContent(), s.validator)...)
	errs = append(errs, s.validateScale(u)...)
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.structural, false)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, s.structural, u.Object)...)
	return errs
}

// validateScale checks the replicas paths of the scale subresource, with
// upstream's messages.
func (s *Schema) validateScale(u *unstructured.Unstructured) field.ErrorList {
	if s.scale == nil {
		return nil
	}
	var errs field.ErrorList
	check := func(path string) {
		p := strings.TrimPrefix(path, ".")
		n, _, err := unstructured.NestedInt64(u.Object, strings.Split(p, ".")...)
		switch {
		case err != nil:
			errs = append(errs, field.Invalid(field.NewPath(path), n, err.Error()))
		case n < 0:
			errs = append(errs, field.Invalid(field.NewPath(path), n, "should be a non-negative integer"))
		case n > math.MaxInt32:
			errs = append(errs, field.Invalid(field.NewPath(path), n, fmt.Sprintf("should be less than or equal to %v", math.MaxInt32)))
		}
	}
	check(s.scale.SpecReplicasPath)
	check(s.scale.StatusReplicasPath)
	if s.scale.LabelSelectorPath != nil {
		p := strings.TrimPrefix(*s.scale.LabelSelectorPath, ".")
		if v, _, err := unstructured.NestedString(u.Object, strings.Split(p, ".")...); err != nil {
			errs = append(errs, field.Invalid(field.NewPath(*s.scale.LabelSelectorPath), v, err.Error()))
		}
	}
	return errs
}
