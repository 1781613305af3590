package registry_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// replaceWith is an UpdatedObjectFunc that stores obj.
func replaceWith(obj runtime.Object) registry.UpdatedObjectFunc {
	return func(context.Context, runtime.Object) (runtime.Object, error) { return obj, nil }
}

func TestConfigMapValidation(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	cm := func(name string, data map[string]string, bin map[string][]byte) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data, BinaryData: bin}
	}
	tests := []struct {
		name string
		cm   *corev1.ConfigMap
		msg  string // "" = accepted
	}{
		{"ok", cm("ok", map[string]string{"color": "blue"}, nil), ""},
		{"bad key", cm("badkey", map[string]string{"a b": "1"}, nil), `ConfigMap "badkey" is invalid: data[a b]: Invalid value: "a b": a valid config key must consist of alphanumeric characters`},
		{"duplicate", cm("dup", map[string]string{"k": "1"}, map[string][]byte{"k": []byte("1")}), `data[k]: Invalid value: "k": duplicate of key present in binaryData`},
		{"1 MiB exactly", cm("full", map[string]string{"big": strings.Repeat("x", corev1.MaxSecretSize)}, nil), ""},
		{"over 1 MiB", cm("huge", map[string]string{"a": strings.Repeat("x", corev1.MaxSecretSize)}, map[string][]byte{"b": []byte("y")}), "Too long: may not be more than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.ConfigMaps.Create(ctx, "default", tt.cm, nil, registry.Options{})
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				return
			}
			wantStatus(t, err, 422, tt.msg)
		})
	}

	t.Run("immutable", func(t *testing.T) {
		frozen := cm("frozen", map[string]string{"k": "v"}, nil)
		frozen.Immutable = ptr.To(true)
		out, err := r.ConfigMaps.Create(ctx, "default", frozen, nil, registry.Options{})
		if err != nil {
			t.Fatal(err)
		}
		changed := out.(*corev1.ConfigMap).DeepCopy()
		changed.Data["k"] = "w"
		_, _, err = r.ConfigMaps.Update(ctx, "default", "frozen", replaceWith(changed), nil, nil, registry.Options{})
		wantStatus(t, err, 422, "data: Forbidden: field is immutable when `immutable` is set")
		thawed := out.(*corev1.ConfigMap).DeepCopy()
		thawed.Immutable = ptr.To(false)
		_, _, err = r.ConfigMaps.Update(ctx, "default", "frozen", replaceWith(thawed), nil, nil, registry.Options{})
		wantStatus(t, err, 422, "immutable: Forbidden: field is immutable when `immutable` is set")
	})
}

func TestSecretDefaultsAndValidation(t *testing.T) {
	r := newRegistry(t)
	ctx := context.Background()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db"}, Data: map[string][]byte{"user": []byte("old")},
		StringData: map[string]string{"user": "admin", "password": "pw"}}
	registry.Secrets.Default(s, true)
	out, err := r.Secrets.Create(ctx, "default", s, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Secret)
	if got.Type != corev1.SecretTypeOpaque || string(got.Data["user"]) != "admin" || string(got.Data["password"]) != "pw" || got.StringData != nil {
		t.Errorf("stored type=%q data=%q stringData=%v, want Opaque, stringData merged over data and dropped", got.Type, got.Data, got.StringData)
	}

	tests := []struct {
		name   string
		secret *corev1.Secret
		msg    string
	}{
		{"tls without keys", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "t"}, Type: corev1.SecretTypeTLS},
			`Secret "t" is invalid: [data[tls.crt]: Required value, data[tls.key]: Required value]`},
		{"dockerconfigjson not json", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Type: corev1.SecretTypeDockerConfigJson,
			Data: map[string][]byte{corev1.DockerConfigJsonKey: []byte("{")}}, `data[.dockerconfigjson]: Invalid value: "<secret contents redacted>"`},
		{"basic-auth empty", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Type: corev1.SecretTypeBasicAuth},
			"data[username]: Required value, data[password]: Required value"},
		{"token without account", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "sa"}, Type: corev1.SecretTypeServiceAccountToken},
			"metadata.annotations[kubernetes.io/service-account.name]: Required value"},
		{"too big", &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "big"}, Data: map[string][]byte{"a": make([]byte, corev1.MaxSecretSize+1)}},
			"data: Too long: may not be more than 1048576 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			registry.Secrets.Default(tt.secret, true)
			_, err := r.Secrets.Create(ctx, "default", tt.secret, nil, registry.Options{})
			wantStatus(t, err, 422, tt.msg)
		})
	}

	t.Run("type is immutable", func(t *testing.T) {
		changed := got.DeepCopy()
		changed.Type = "example.com/other"
		_, _, err := r.Secrets.Update(ctx, "default", "db", replaceWith(changed), nil, nil, registry.Options{})
		wantStatus(t, err, 422, `type: Invalid value: "example.com/other": field is immutable`)
	})
	t.Run("field selector on type", func(t *testing.T) {
		list, err := r.Secrets.List(ctx, "default", listOpts(t, "type=Opaque"))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(list.(*corev1.SecretList).Items); n != 1 {
			t.Errorf("type=Opaque matched %d secrets, want 1", n)
		}
	})
}

// listOpts selects by the field selector sel.
func listOpts(t *testing.T, sel string) *metainternalversion.ListOptions {
	t.Helper()
	s, err := fields.ParseSelector(sel)
	if err != nil {
		t.Fatal(err)
	}
	return &metainternalversion.ListOptions{FieldSelector: s}
}
