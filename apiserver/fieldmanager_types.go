package apiserver

import (
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	extensionsapply "k8s.io/apiextensions-apiserver/pkg/client/applyconfiguration"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	coreapply "k8s.io/client-go/applyconfigurations"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregatorapply "k8s.io/kube-aggregator/pkg/client/applyconfiguration"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/typed"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// builtinTypeConverter returns the type information of the built-in
// kinds, shared by every endpoint: the structured-merge-diff schemas that
// client-go, apiextensions-apiserver and kube-aggregator publish for their
// apply configurations, generated from the same OpenAPI models as
// kube-apiserver's (with their list types and map keys, which say how
// lists merge and how their items are named in managedFields:
// k:{"name":"nginx"}). kubesim's own /openapi documents are made by
// reflection and lack those markers, so they are not used here.
var builtinTypeConverter = sync.OnceValue(func() managedfields.TypeConverter {
	return groupTypeConverter{
		core:       coreapply.NewTypeConverter(registry.Scheme),
		extensions: extensionsapply.NewTypeConverter(registry.Scheme),
		aggregator: aggregatorapply.NewTypeConverter(registry.Scheme),
	}
})

// groupTypeConverter picks the schemas of an object's API group.
type groupTypeConverter struct {
	core, extensions, aggregator managedfields.TypeConverter
}

// ObjectToTyped implements managedfields.TypeConverter.
func (c groupTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	switch obj.GetObjectKind().GroupVersionKind().Group {
	case apiextensionsv1.GroupName:
		return c.extensions.ObjectToTyped(obj, opts...)
	case apiregistrationv1.GroupName:
		return c.aggregator.ObjectToTyped(obj, opts...)
	}
	return c.core.ObjectToTyped(obj, opts...)
}

// TypedToObject implements managedfields.TypeConverter (an unstructured
// object, whichever schemas made the value).
func (c groupTypeConverter) TypedToObject(v *typed.TypedValue) (runtime.Object, error) {
	return c.core.TypedToObject(v)
}

// builtinConverter converts built-in objects for the field manager: an
// unstructured object (what a merge yields) to its Go type, and a typed
// object to another version of its kind through the internal version, as
// kube-apiserver converts through its hub.
type builtinConverter struct{}

// ConvertToVersion implements runtime.ObjectConvertor.
func (builtinConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	out, err := registry.Scheme.ConvertToVersion(in, target)
	if err == nil {
		return out, nil
	}
	gvks, _, kerr := legacyscheme.Scheme.ObjectKinds(in)
	if kerr != nil || len(gvks) == 0 {
		return nil, err
	}
	hub, herr := legacyscheme.Scheme.ConvertToVersion(in, schema.GroupVersion{Group: gvks[0].Group, Version: runtime.APIVersionInternal})
	if herr != nil {
		return nil, err
	}
	return legacyscheme.Scheme.ConvertToVersion(hub, target)
}

// Convert implements runtime.ObjectConvertor.
func (builtinConverter) Convert(in, out, context any) error {
	return registry.Scheme.Convert(in, out, context)
}

// ConvertFieldLabel implements runtime.ObjectConvertor.
func (builtinConverter) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return registry.Scheme.ConvertFieldLabel(gvk, label, value)
}

// customResourceConverter converts custom resources between the versions
// of their CRD as kubesim serves them (conversion strategy None: only
// apiVersion changes).
type customResourceConverter struct{}

// ConvertToVersion implements runtime.ObjectConvertor.
func (customResourceConverter) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("a custom resource must be unstructured, not %T", in)
	}
	gvk, err := unstructuredKindFor(u, target)
	if err != nil {
		return nil, err
	}
	out := u.DeepCopy()
	out.SetGroupVersionKind(gvk)
	return out, nil
}

// Convert implements runtime.ObjectConvertor.
func (customResourceConverter) Convert(in, out, _ any) error {
	return fmt.Errorf("custom resources convert only by version (%T to %T)", in, out)
}

// ConvertFieldLabel implements runtime.ObjectConvertor.
func (customResourceConverter) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// customResourceTypeConverter is the type information of crd's custom
// resources, as apiextensions-apiserver builds it: the OpenAPI v3 models
// of every version (their structural schemas, with ObjectMeta and the
// x-kubernetes-* list and map markers), read as structured-merge-diff
// schemas, x-kubernetes-preserve-unknown-fields keeping unknown fields;
// without usable models, the deduced converter (every field atomic).
func customResourceTypeConverter(crd *apiextensionsv1.CustomResourceDefinition) managedfields.TypeConverter {
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		s, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{})
		if err != nil {
			return managedfields.NewDeducedTypeConverter()
		}
		specs = append(specs, s)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil || merged.Components == nil || len(merged.Components.Schemas) == 0 {
		return managedfields.NewDeducedTypeConverter()
	}
	tc, err := managedfields.NewTypeConverter(merged.Components.Schemas, crd.Spec.PreserveUnknownFields)
	if err != nil {
		return managedfields.NewDeducedTypeConverter()
	}
	return tc
}

// UseCustomResourceFields makes e, the endpoint of one served version of
// crd, keep its objects' managedFields by crd's schemas, with
// apiextensions-apiserver's CRD field manager: the resource resets status
// when the version has the status subresource; /status resets metadata
// and spec (of every version). Call it before e serves requests.
func (e *Endpoint) UseCustomResourceFields(crd *apiextensionsv1.CustomResourceDefinition) {
	tc := customResourceTypeConverter(crd)
	kind := e.gvk()
	res := e.res
	hasStatus := e.HasSubresource(subStatus)
	e.fields.custom = func(sub string) (*managedfields.FieldManager, error) {
		reset := map[fieldpath.APIVersion]*fieldpath.Set{}
		switch {
		case sub == subStatus:
			for _, v := range crd.Spec.Versions {
				reset[fieldpath.APIVersion(crd.Spec.Group+"/"+v.Name)] = fieldpath.NewSet(fieldpath.MakePathOrDie("metadata"), fieldpath.MakePathOrDie("spec"))
			}
		case sub == "" && hasStatus:
			reset[fieldpath.APIVersion(kind.GroupVersion().String())] = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
		case sub != "":
			return nil, fmt.Errorf("no field manager for %s/%s", res.Plural, sub)
		}
		defaulter := defaulterFunc(func(obj runtime.Object) {
			if res.Default != nil {
				res.Default(obj, false)
			}
		})
		creator := creatorFunc(func(schema.GroupVersionKind) (runtime.Object, error) { return res.NewFunc(), nil })
		return managedfields.NewDefaultCRDFieldManager(tc, customResourceConverter{}, defaulter, creator,
			kind, kind.GroupVersion(), sub, fieldpath.NewExcludeFilterSetMap(reset))
	}
}
