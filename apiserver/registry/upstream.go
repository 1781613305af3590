package registry

// The built-in kinds default and validate with kube-apiserver's own
// packages (k8s.io/kubernetes/pkg/apis/...), the way its registry
// strategies (pkg/registry/<group>/<kind>/strategy.go) call them: the
// decoded v1 object gets the generated v1 defaulter (SetObjectDefaults_*),
// and validation converts it to the internal type and runs the kind's
// Validate* function on that. The object stored is still the v1 one.
// The fields defaulting set are found by comparing the object before and
// after (defaultedFields), for the "defaulted" step of a request's trace.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	_ "k8s.io/kubernetes/pkg/apis/apps/install" // legacyscheme: the kinds' versions, conversions and declarative validation
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	"k8s.io/kubernetes/pkg/features"
)

// convertFunc is a generated conversion from a v1 type to its internal
// type (Convert_v1_Pod_To_core_Pod...).
type convertFunc[V, I any] func(in *V, out *I, s conversion.Scope) error

// upstreamDefaults returns a Resource.Default that does to a decoded v1
// object what kube-apiserver does to it on its way to storage: set, the
// kind's generated v1 defaulter (nil for a kind without one), then the
// conversion to the internal type and back, which keeps deprecated
// aliases in step (spec.serviceAccount of a pod, status.podIP and
// podIPs). It returns what changed. An object that does not convert is
// left as defaulted: its validation reports the conversion error.
func upstreamDefaults[V, I any](set func(*V), to convertFunc[V, I], from convertFunc[I, V]) func(obj runtime.Object, list bool) []string {
	return func(obj runtime.Object, list bool) []string {
		var before runtime.Object
		if list {
			before = obj.DeepCopyObject()
		}
		v := any(obj).(*V)
		if set != nil {
			set(v)
		}
		gvk := obj.GetObjectKind().GroupVersionKind()
		in, out := new(I), new(V)
		if to(v, in, nil) == nil && from(in, out, nil) == nil {
			*v = *out
			obj.GetObjectKind().SetGroupVersionKind(gvk)
		}
		if !list {
			return nil
		}
		return defaultedFields(before, obj)
	}
}

// toInternal converts obj, a *V, to the internal type.
func toInternal[V, I any](obj runtime.Object, convert convertFunc[V, I]) (*I, field.ErrorList) {
	out := new(I)
	if err := convert(any(obj).(*V), out, nil); err != nil {
		return nil, field.ErrorList{field.InternalError(nil, err)}
	}
	return out, nil
}

// upstreamValidate returns a Strategy.Validate that converts the object
// to the internal type and runs check, an upstream validation, then
// upstream's declarative validation, as rest.ValidateCreate does.
func upstreamValidate[V, I any](convert convertFunc[V, I], check func(obj *I) field.ErrorList) func(obj runtime.Object) field.ErrorList {
	return func(obj runtime.Object) field.ErrorList {
		in, errs := toInternal(obj, convert)
		if errs != nil {
			return errs
		}
		return declarative(obj, any(in).(runtime.Object), nil, check(in), operation.Create, "")
	}
}

// upstreamValidateUpdate is upstreamValidate for Strategy.ValidateUpdate.
func upstreamValidateUpdate[V, I any](convert convertFunc[V, I], check func(obj, old *I) field.ErrorList) func(obj, old runtime.Object) field.ErrorList {
	return upstreamValidateSubresource("", convert, check)
}

// upstreamValidateSubresource is upstreamValidateUpdate for the strategy
// of a subresource ("status"), which declarative validation is told.
func upstreamValidateSubresource[V, I any](subresource string, convert convertFunc[V, I], check func(obj, old *I) field.ErrorList) func(obj, old runtime.Object) field.ErrorList {
	return func(obj, old runtime.Object) field.ErrorList {
		in, errs := toInternal(obj, convert)
		if errs != nil {
			return errs
		}
		oldIn, errs := toInternal(old, convert)
		if errs != nil {
			return errs
		}
		return declarative(obj, any(in).(runtime.Object), any(oldIn).(runtime.Object), check(in, oldIn), operation.Update, subresource)
	}
}

// declarative runs upstream's declarative validation (the generated
// zz_generated.validations.go of the kind's version) on in, the internal
// object converted from obj (oldIn: the stored one on an update, else nil),
// and merges its errors with errs, those of the hand-written validation,
// as rest.ValidateCreate and ValidateUpdate do for every strategy that
// embeds rest.DeclarativeValidation: all of the kinds here but APIService,
// whose type legacyscheme does not know. The request is taken to be for
// obj's version.
func declarative(obj, in, oldIn runtime.Object, errs field.ErrorList, op operation.Type, subresource string) field.ErrorList {
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return errs
	}
	gvk := gvks[0]
	ctx := genericapirequest.WithRequestInfo(context.Background(), &genericapirequest.RequestInfo{
		APIGroup: gvk.Group, APIVersion: gvk.Version, Subresource: subresource,
	})
	return rest.ValidateDeclarativelyWithMigrationChecks(ctx, legacyscheme.Scheme, in, oldIn, errs, op, declarativeConfig(gvk.GroupKind()))
}

// declarativeConfig is the DeclarativeValidationConfig of the kind's
// upstream strategy: the zero value but for the bindings
// (pkg/registry/rbac/{rolebinding,clusterrolebinding}) and nodes
// (pkg/registry/core/node).
func declarativeConfig(gk schema.GroupKind) rest.DeclarativeValidationConfig {
	switch gk {
	case rbacv1.SchemeGroupVersion.WithKind("RoleBinding").GroupKind(), rbacv1.SchemeGroupVersion.WithKind("ClusterRoleBinding").GroupKind():
		return rest.DeclarativeValidationConfig{ShortCircuitMismatch: true}
	case corev1.SchemeGroupVersion.WithKind("Node").GroupKind():
		gate := string(features.InPlacePodVerticalScalingSchedulerPreemption)
		return rest.DeclarativeValidationConfig{Options: map[string]bool{
			gate: utilfeature.DefaultFeatureGate.Enabled(features.InPlacePodVerticalScalingSchedulerPreemption),
		}}
	}
	return rest.DeclarativeValidationConfig{}
}

// defaultedFields lists, as "path=value" with the value in JSON, the
// leaf fields whose value differs between before and after (two objects of
// one Go type), in the order of the type's fields; map keys are sorted. A
// struct or map set where there was nothing is reported field by field
// (spec.strategy.rollingUpdate.maxSurge="25%"), or as "{}" if it is empty
// (spec.securityContext={}).
func defaultedFields(before, after runtime.Object) []string {
	var out []string
	diffValue(reflect.ValueOf(before), reflect.ValueOf(after), "", &out)
	return out
}

func diffValue(b, a reflect.Value, path string, out *[]string) {
	if reflect.DeepEqual(b.Interface(), a.Interface()) {
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			break
		}
		if b.IsNil() {
			if a.Elem().Kind() != reflect.Struct || a.Elem().IsZero() {
				break
			}
			b = reflect.New(a.Type().Elem())
		}
		diffValue(b.Elem(), a.Elem(), path, out)
		return
	case reflect.Struct:
		if _, ok := a.Interface().(json.Marshaler); !ok {
			diffStruct(b, a, path, out)
			return
		}
	case reflect.Slice:
		if !b.IsNil() && b.Len() == a.Len() {
			for i := 0; i < a.Len(); i++ {
				diffValue(b.Index(i), a.Index(i), fmt.Sprintf("%s[%d]", path, i), out)
			}
			return
		}
	case reflect.Map:
		if a.Len() > 0 {
			diffMap(b, a, path, out)
			return
		}
	}
	emit(path, a, out)
}

func diffMap(b, a reflect.Value, path string, out *[]string) {
	keys := a.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
	for _, k := range keys {
		p := join(path, fmt.Sprint(k.Interface()))
		if bv := b.MapIndex(k); bv.IsValid() {
			diffValue(bv, a.MapIndex(k), p, out)
		} else {
			emit(p, a.MapIndex(k), out)
		}
	}
}

func diffStruct(b, a reflect.Value, path string, out *[]string) {
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := path
		if !f.Anonymous || name != "" {
			if name == "" {
				name = f.Name
			}
			p = join(path, name)
		}
		diffValue(b.Field(i), a.Field(i), p, out)
	}
}

func emit(path string, v reflect.Value, out *[]string) {
	data, err := json.Marshal(v.Interface())
	if err != nil {
		data = []byte(fmt.Sprint(v.Interface()))
	}
	*out = append(*out, path+"="+string(data))
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
