package registry

import (
	"encoding/json"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Secrets is the core/v1 secrets resource. stringData is merged into data
// when the body is decoded (as upstream's v1 conversion does) and never
// stored; the type defaults to Opaque and, once set, may not change; the
// common types must carry their keys.
var Secrets = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Secret"),
	Plural:       "secrets",
	Singular:     "secret",
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.Secret{} },
	NewListFunc:  func() runtime.Object { return &corev1.SecretList{} },
	Table:        printers.Secrets,
	Default:      defaultSecret,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForUpdate: func(obj, old runtime.Object) {
			if s := obj.(*corev1.Secret); s.Type == "" {
				s.Type = old.(*corev1.Secret).Type
			}
		},
		Validate:                 func(obj runtime.Object) field.ErrorList { return validateSecret(obj.(*corev1.Secret)) },
		ValidateUpdate:           validateSecretUpdate,
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		s := obj.(*corev1.Secret)
		return fields.Set{"metadata.name": s.Name, "metadata.namespace": s.Namespace, "type": string(s.Type)}
	},
	FieldLabels: []string{"metadata.name", "metadata.namespace", "type"},
}

// defaultSecret moves stringData into data (stringData wins) and
// defaults the type to Opaque, reporting both.
func defaultSecret(obj runtime.Object) []string {
	s := obj.(*corev1.Secret)
	var d defaulted
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for _, k := range sortedKeys(s.StringData) {
			s.Data[k] = []byte(s.StringData[k])
			d.add("data."+k, "<from stringData>")
		}
	}
	s.StringData = nil
	if s.Type == "" {
		s.Type = corev1.SecretTypeOpaque
		d.add("type", s.Type)
	}
	return d
}

// validateSecret checks keys, size and the keys each common type needs,
// as upstream's ValidateSecret.
func validateSecret(s *corev1.Secret) field.ErrorList {
	data := field.NewPath("data")
	var errs field.ErrorList
	total := 0
	for _, key := range sortedKeys(s.Data) {
		errs = append(errs, configMapKeyErrors(data.Key(key), key)...)
		total += len(s.Data[key])
	}
	if total > corev1.MaxSecretSize {
		errs = append(errs, field.TooLong(data, "", corev1.MaxSecretSize))
	}
	return append(errs, validateSecretType(s, data)...)
}

// validateSecretType checks what the secret's type requires.
func validateSecretType(s *corev1.Secret, data *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch s.Type {
	case corev1.SecretTypeServiceAccountToken:
		if s.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		errs = append(errs, jsonKey(s, data, corev1.DockerConfigKey)...)
	case corev1.SecretTypeDockerConfigJson:
		errs = append(errs, jsonKey(s, data, corev1.DockerConfigJsonKey)...)
	case corev1.SecretTypeBasicAuth:
		_, user := s.Data[corev1.BasicAuthUsernameKey]
		_, pass := s.Data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			errs = append(errs, field.Required(data.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(data.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(s.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		for _, k := range []string{corev1.TLSCertKey, corev1.TLSPrivateKeyKey} {
			if _, ok := s.Data[k]; !ok {
				errs = append(errs, field.Required(data.Key(k), ""))
			}
		}
	}
	return errs
}

// jsonKey requires key to be present and to hold a JSON object.
func jsonKey(s *corev1.Secret, data *field.Path, key string) field.ErrorList {
	b, ok := s.Data[key]
	if !ok {
		return field.ErrorList{field.Required(data.Key(key), "")}
	}
	if err := json.Unmarshal(b, &map[string]any{}); err != nil {
		return field.ErrorList{field.Invalid(data.Key(key), "<secret contents redacted>", err.Error())}
	}
	return nil
}

// validateSecretUpdate adds upstream's rules for updates: the type is
// immutable, and so is the data of an immutable secret.
func validateSecretUpdate(obj, old runtime.Object) field.ErrorList {
	s, o := obj.(*corev1.Secret), old.(*corev1.Secret)
	var errs field.ErrorList
	if s.Type != o.Type {
		errs = append(errs, field.Invalid(field.NewPath("type"), s.Type, "field is immutable"))
	}
	if isTrue(o.Immutable) {
		if !isTrue(s.Immutable) {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableMsg))
		}
		if !reflect.DeepEqual(s.Data, o.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableMsg))
		}
	}
	return append(errs, validateSecret(s)...)
}
