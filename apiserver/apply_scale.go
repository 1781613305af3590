package apiserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	extensionsopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/yaml"
)

// scaleTypeConverter is the type information of autoscaling/v1 Scale,
// which the published apply configurations leave out: read from the
// generated OpenAPI definitions apiextensions-apiserver builds its
// custom resources' models with (Scale, ObjectMeta and the rest, with
// their list and map markers), the Scale given its
// x-kubernetes-group-version-kind as kube-apiserver's models carry it.
var scaleTypeConverter = sync.OnceValues(func() (managedfields.TypeConverter, error) {
	defs := extensionsopenapi.GetOpenAPIDefinitions(func(name string) spec.Ref { return spec.MustCreateRef("#/components/schemas/" + name) })
	models := make(map[string]*spec.Schema, len(defs))
	for name, def := range defs {
		s := def.Schema
		models[name] = &s
	}
	scale := models[autoscalingv1.Scale{}.OpenAPIModelName()]
	if scale == nil {
		return nil, fmt.Errorf("no OpenAPI definition of %s", ScaleGVK)
	}
	scale.AddExtension("x-kubernetes-group-version-kind", []any{map[string]any{"group": ScaleGVK.Group, "version": ScaleGVK.Version, "kind": ScaleGVK.Kind}})
	return managedfields.NewTypeConverter(models, false)
})

// scaleFieldManager is the field manager of every scale subresource (an
// autoscaling/v1 Scale written under subresource "scale"), as upstream's
// scale endpoints have.
var scaleFieldManager = sync.OnceValues(func() (*managedfields.FieldManager, error) {
	tc, err := scaleTypeConverter()
	if err != nil {
		return nil, err
	}
	return managedfields.NewDefaultFieldManager(tc, builtinConverter{}, defaulterFunc(func(runtime.Object) {}),
		creatorFunc(func(schema.GroupVersionKind) (runtime.Object, error) { return &autoscalingv1.Scale{}, nil }),
		ScaleGVK, ScaleGVK.GroupVersion(), subScale, nil)
})

// ScaleWrite is one write of a scale subresource, read from its request:
// a PUT of a Scale, or a PATCH (JSON, merge or strategic merge patch, or a
// server-side apply of a Scale). Deployments, ReplicaSets and custom
// resources share it.
type ScaleWrite struct {
	put       []byte // the PUT's Scale, as JSON
	patchType types.PatchType
	patch     []byte
	opts      metav1.PatchOptions // of a PATCH (fieldManager and force for apply)
	manager   string              // whom the write is recorded under
	dryRun    bool
}

// DryRun reports whether the write is a dry run.
func (w *ScaleWrite) DryRun() bool { return w.dryRun }

// ReadScaleWrite reads the write of r, a PUT or PATCH of a scale
// subresource, with the answers upstream gives to bad options or bodies.
func (s *Server) ReadScaleWrite(r *http.Request) (*ScaleWrite, error) {
	if r.Method == http.MethodPut {
		opts, err := updateOptions(r)
		if err != nil {
			return nil, err
		}
		body, err := readBody(r, s.cfg.MaxRequestBodyBytes)
		if err != nil {
			return nil, err
		}
		obj, _, err := decodeBody(r, body, ScaleGVK, &autoscalingv1.Scale{}, "")
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		return &ScaleWrite{put: data, manager: managerName(opts.FieldManager, r.UserAgent()), dryRun: len(opts.DryRun) > 0}, nil
	}
	pt := types.PatchType(ParseMediaType(r.Header.Get("Content-Type")))
	opts, body, err := (&handlers{s: s}).patchRequest(r, pt)
	if err != nil {
		return nil, err
	}
	return &ScaleWrite{patchType: pt, patch: body, opts: *opts, manager: managerName(opts.FieldManager, r.UserAgent()), dryRun: len(opts.DryRun) > 0}, nil
}

// Write makes the new Scale from cur, the Scale of parent (of
// group-version gv, whose replicas are at replicasPath), and records the
// write in parent's managedFields as upstream's scale storage does: the
// parent's entries are read as the Scale's (replicas moved to
// spec.replicas), the Scale's field manager records or merges the write,
// and the entries go back to the parent.
func (w *ScaleWrite) Write(parent runtime.Object, gv schema.GroupVersion, replicasPath fieldpath.Path, cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	pm, err := meta.Accessor(parent)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	handler := managedfields.NewScaleHandler(pm.GetManagedFields(), gv, managedfields.ResourcePathMappings{gv.String(): replicasPath})
	entries, err := handler.ToSubresource()
	if err != nil {
		return nil, err
	}
	cur.ManagedFields = entries
	sc, err := w.next(cur)
	if err != nil {
		return nil, err
	}
	parentEntries, err := handler.ToParent(sc.ManagedFields)
	if err != nil {
		return nil, err
	}
	pm.SetManagedFields(parentEntries)
	return sc, nil
}

// next is the Scale the write makes of cur, its managedFields updated.
func (w *ScaleWrite) next(cur *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	fm, err := scaleFieldManager()
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	if w.patchType == types.ApplyYAMLPatchType {
		patchObj := &unstructured.Unstructured{Object: map[string]any{}}
		if err := yaml.Unmarshal(w.patch, &patchObj.Object); err != nil {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("error decoding patch: %v", err))
		}
		obj, err := fm.Apply(cur, patchObj, w.opts.FieldManager, w.opts.Force != nil && *w.opts.Force)
		if err != nil {
			return nil, err
		}
		sc, ok := obj.(*autoscalingv1.Scale)
		if !ok {
			return nil, apierrors.NewInternalError(fmt.Errorf("apply made a %T of a Scale", obj))
		}
		return sc, nil
	}
	data := w.put
	if data == nil {
		if data, err = ScalePatcher(w.patchType, w.patch)(cur.DeepCopy()); err != nil {
			return nil, err
		}
	}
	var sc autoscalingv1.Scale
	if err := yaml.Unmarshal(data, &sc); err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("the object provided is unrecognized (must be of type Scale): %v", err))
	}
	sc.SetGroupVersionKind(ScaleGVK)
	return fm.UpdateNoErrors(cur, &sc, w.manager).(*autoscalingv1.Scale), nil
}
