package registry

import (
	"context"
	"fmt"
	"io"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
	"github.com/kubesim/kubesim/apiserver/storage"
)

// CustomResourceStores are the stores of one served version of a CRD.
type CustomResourceStores struct {
	// Resource is the served version as the generic handlers see it.
	Resource *Resource
	// Schema is the version's compiled schema.
	Schema *apiextensions.Schema
	// Main serves the custom resources; Status, if the version declares
	// the status subresource, serves /status (nil otherwise). Both read
	// and write the same keys.
	Main, Status *Store
}

// NewCustomResourceStores builds the stores of version of crd (a CRD
// that passed validation), on cfg's etcd client: objects live, as
// upstream keeps them, under /registry/<group>/<plural>/[<namespace>/]<name>,
// are stored at the CRD's storage version (conversion None: only
// apiVersion changes) and read back at version, pruned and defaulted by
// the version's schema (as upstream's storage decoder does). The strategy
// is upstream's custom resource strategy (see customResourceStrategy).
// The caller runs the main store's watch cache (Storage().Run), or its
// watches go to etcd.
func NewCustomResourceStores(crd *apiextensionsv1.CustomResourceDefinition, version string, cfg StoreConfig) (*CustomResourceStores, error) {
	sch, err := apiextensions.NewSchema(crd, version)
	if err != nil {
		return nil, err
	}
	table, err := apiextensions.NewTableConvertor(crd, version)
	if err != nil {
		return nil, err
	}
	storageVersion := ""
	var served *apiextensionsv1.CustomResourceDefinitionVersion
	for i, v := range crd.Spec.Versions {
		if v.Storage {
			storageVersion = v.Name
		}
		if v.Name == version {
			served = &crd.Spec.Versions[i]
		}
	}
	names := crd.Status.AcceptedNames
	if names.Plural == "" {
		names = crd.Spec.Names
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: names.Kind}
	listGVK := gvk.GroupVersion().WithKind(names.ListKind)
	hasStatus := served.Subresources != nil && served.Subresources.Status != nil
	res := &Resource{
		Kind: gvk, Plural: names.Plural, Singular: names.Singular, ShortNames: names.ShortNames, Categories: names.Categories,
		Namespaced: crd.Spec.Scope == apiextensionsv1.NamespaceScoped,
		KeyPrefix:  crd.Spec.Group + "/" + names.Plural,
		NewFunc: func() runtime.Object {
			u := &unstructured.Unstructured{}
			u.SetGroupVersionKind(gvk)
			return u
		},
		NewListFunc: func() runtime.Object {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(listGVK)
			return l
		},
		Table:        customTable(table),
		Decoded:      coerceBy(sch),
		Default:      func(obj runtime.Object, _ bool) []string { return sch.Default(obj.(*unstructured.Unstructured).Object) },
		ValidateName: validation.NameIsDNSSubdomain,
		Strategy:     customResourceStrategy(sch, hasStatus),
	}
	codec := &customResourceCodec{schema: sch, served: gvk.GroupVersion().String(),
		stored: schema.GroupVersion{Group: crd.Spec.Group, Version: storageVersion}.String()}
	st, err := storage.New(storage.Config{
		Client: cfg.Client, Codec: codec, Prefix: res.keyPrefix(),
		NewFunc: res.NewFunc, NewListFunc: res.NewListFunc,
		BookmarkInterval: cfg.BookmarkInterval, OnWrite: cfg.OnWrite,
		GroupResource: schema.GroupResource{Group: crd.Spec.Group, Resource: names.Plural},
	})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", crd.Name, version, err)
	}
	out := &CustomResourceStores{Resource: res, Schema: sch, Main: &Store{Resource: res, strategy: res.Strategy, storage: st}}
	if hasStatus {
		out.Status = out.Main.WithStrategy(customResourceStatusStrategy(sch))
	}
	return out, nil
}

// customResourceStrategy is upstream's strategy for custom resources:
// with the status subresource a create drops status and an update keeps
// the old one; any change outside metadata bumps metadata.generation
// (which a create sets to 1); the object is validated against its
// schema; PUT needs a resourceVersion and does not create.
func customResourceStrategy(sch *apiextensions.Schema, hasStatus bool) Strategy {
	return Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			u := obj.(*unstructured.Unstructured)
			if hasStatus {
				delete(u.Object, "status")
			}
			u.SetGeneration(1)
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			u, o := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
			if hasStatus {
				if st, ok := o.Object["status"]; ok {
					u.Object["status"] = st
				} else {
					delete(u.Object, "status")
				}
			}
			if !equality.Semantic.DeepEqual(withoutMetadata(u.Object), withoutMetadata(o.Object)) {
				u.SetGeneration(o.GetGeneration() + 1)
			}
		},
		Validate: func(obj runtime.Object) field.ErrorList {
			return sch.Validate(context.Background(), obj.(*unstructured.Unstructured))
		},
		ValidateUpdate: func(obj, _ runtime.Object) field.ErrorList {
			return sch.Validate(context.Background(), obj.(*unstructured.Unstructured))
		},
	}
}

// customResourceStatusStrategy is upstream's status strategy: an update
// of /status changes the status only (and never the generation), and
// the managedFields the field manager recorded for it.
func customResourceStatusStrategy(sch *apiextensions.Schema) Strategy {
	return Strategy{
		PrepareForUpdate: func(obj, old runtime.Object) {
			u, o := obj.(*unstructured.Unstructured), old.(*unstructured.Unstructured)
			st, ok := u.Object["status"]
			managed := u.GetManagedFields()
			u.Object = o.DeepCopy().Object
			u.SetManagedFields(managed)
			if ok {
				u.Object["status"] = st
			} else {
				delete(u.Object, "status")
			}
		},
		ValidateUpdate: func(obj, _ runtime.Object) field.ErrorList {
			return sch.Validate(context.Background(), obj.(*unstructured.Unstructured))
		},
	}
}

// withoutMetadata is obj's top level without metadata (shallow).
func withoutMetadata(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "metadata" {
			out[k] = v
		}
	}
	return out
}

// customResourceCodec stores custom resources as JSON at the storage
// version and reads them back at the served version, pruned and
// defaulted by its schema, as upstream's storage codec does with the
// None conversion strategy.
type customResourceCodec struct {
	schema         *apiextensions.Schema
	served, stored string // apiVersions
}

// Encode writes obj at the storage version.
func (c *customResourceCodec) Encode(obj runtime.Object, w io.Writer) error {
	if u, ok := obj.(*unstructured.Unstructured); ok && u.GetAPIVersion() != c.stored {
		u = u.DeepCopy()
		u.SetAPIVersion(c.stored)
		obj = u
	}
	return unstructured.UnstructuredJSONScheme.Encode(obj, w)
}

// Identifier names the codec.
func (c *customResourceCodec) Identifier() runtime.Identifier {
	return runtime.Identifier("kubesim-customresource-" + c.stored)
}

// Decode reads a stored object at the served version.
func (c *customResourceCodec) Decode(data []byte, _ *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if into == nil {
		into = &unstructured.Unstructured{}
	}
	obj, gvk, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, into)
	if err != nil {
		return nil, gvk, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj, gvk, nil
	}
	u.SetAPIVersion(c.served)
	if _, err := c.schema.Coerce(u.Object, false); err != nil {
		return nil, gvk, err
	}
	c.schema.Default(u.Object)
	return u, gvk, nil
}
