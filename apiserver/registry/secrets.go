package registry

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Secrets is the core/v1 secrets resource. stringData is merged into data
// when the body is decoded (as upstream's v1 conversion does) and never
// stored; defaults (type Opaque) and validation are upstream's.
var Secrets = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("Secret"),
	Plural:      "secrets",
	Singular:    "secret",
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.Secret{} },
	NewListFunc: func() runtime.Object { return &corev1.SecretList{} },
	Table:       printers.Secrets,
	Default:     defaultSecret,
	Strategy: Strategy{
		PrepareForUpdate: func(obj, old runtime.Object) {
			if s := obj.(*corev1.Secret); s.Type == "" {
				s.Type = old.(*corev1.Secret).Type
			}
		},
		Validate:                 validateSecret,
		ValidateUpdate:           validateSecretUpdate,
		WarningsOnCreate:         onCreate(warnSecret),
		WarningsOnUpdate:         onUpdate(warnSecret),
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		s := obj.(*corev1.Secret)
		return fields.Set{"metadata.name": s.Name, "metadata.namespace": s.Namespace, "type": string(s.Type)}
	},
	FieldLabels: []string{"metadata.name", "metadata.namespace", "type"},
}

// defaultSecret moves stringData into data (stringData wins), as
// upstream's Convert_v1_Secret_To_core_Secret does, reporting each key
// without its value, then applies upstream's defaults.
func defaultSecret(obj runtime.Object, list bool) []string {
	s := obj.(*corev1.Secret)
	var d defaulted
	if len(s.StringData) > 0 {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for _, k := range slices.Sorted(maps.Keys(s.StringData)) {
			s.Data[k] = []byte(s.StringData[k])
			d.add("data."+k, "<from stringData>")
		}
	}
	s.StringData = nil
	return append(d, defaultSecretUpstream(obj, list)...)
}

// The defaults and validation of secrets are upstream's strategy's
// (pkg/registry/core/secret/strategy.go).
var (
	defaultSecretUpstream = upstreamDefaults(upcorev1.SetObjectDefaults_Secret, upcorev1.Convert_v1_Secret_To_core_Secret, upcorev1.Convert_core_Secret_To_v1_Secret)
	validateSecret        = upstreamValidate(upcorev1.Convert_v1_Secret_To_core_Secret, corevalidation.ValidateSecret)
	validateSecretUpdate  = upstreamValidateUpdate(upcorev1.Convert_v1_Secret_To_core_Secret, corevalidation.ValidateSecretUpdate)
)

// defaulted collects the fields defaulting set, as "path=value".
type defaulted []string

func (d *defaulted) add(path string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprint(v))
	}
	*d = append(*d, path+"="+string(data))
}
