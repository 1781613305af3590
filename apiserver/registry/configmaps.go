package registry

import (
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ConfigMaps is the core/v1 configmaps resource. A ConfigMap holds at
// most corev1.MaxSecretSize (1 MiB) of data and binaryData together; one
// marked immutable keeps its data for good.
var ConfigMaps = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("ConfigMap"),
	Plural:       "configmaps",
	Singular:     "configmap",
	ShortNames:   []string{"cm"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.ConfigMap{} },
	NewListFunc:  func() runtime.Object { return &corev1.ConfigMapList{} },
	Table:        printers.ConfigMaps,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		Validate:                 func(obj runtime.Object) field.ErrorList { return validateConfigMap(obj.(*corev1.ConfigMap)) },
		ValidateUpdate:           validateConfigMapUpdate,
		AllowUnconditionalUpdate: true,
	},
}

// validateConfigMap checks keys and size as upstream's ValidateConfigMap
// (keys in sorted order, so that the message is the same every time).
func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	total := 0
	for _, key := range sortedKeys(cm.Data) {
		errs = append(errs, configMapKeyErrors(field.NewPath("data").Key(key), key)...)
		if _, dup := cm.BinaryData[key]; dup {
			errs = append(errs, field.Invalid(field.NewPath("data").Key(key), key, "duplicate of key present in binaryData"))
		}
		total += len(cm.Data[key])
	}
	for _, key := range sortedKeys(cm.BinaryData) {
		errs = append(errs, configMapKeyErrors(field.NewPath("binaryData").Key(key), key)...)
		total += len(cm.BinaryData[key])
	}
	if total > corev1.MaxSecretSize {
		// The whole object, as upstream reports it.
		errs = append(errs, field.TooLong(field.NewPath(""), "", corev1.MaxSecretSize))
	}
	return errs
}

// validateConfigMapUpdate adds upstream's immutability rules.
func validateConfigMapUpdate(obj, old runtime.Object) field.ErrorList {
	cm, o := obj.(*corev1.ConfigMap), old.(*corev1.ConfigMap)
	var errs field.ErrorList
	if isTrue(o.Immutable) {
		if !isTrue(cm.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !reflect.DeepEqual(cm.Data, o.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
		if !reflect.DeepEqual(cm.BinaryData, o.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableMsg))
		}
	}
	return append(errs, validateConfigMap(cm)...)
}

// immutableMsg is upstream's message for a change to an immutable
// ConfigMap or Secret.
const immutableMsg = "field is immutable when `immutable` is set"

// configMapKeyErrors checks one data key (also used for secrets).
func configMapKeyErrors(p *field.Path, key string) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range utilvalidation.IsConfigMapKey(key) {
		errs = append(errs, field.Invalid(p, key, msg))
	}
	return errs
}

func isTrue(b *bool) bool { return b != nil && *b }

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
