package registry_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

func mustStorageCodec(t *testing.T, mediaType string) runtime.Codec {
	t.Helper()
	c, err := registry.StorageCodec(mediaType)
	if err != nil {
		t.Fatalf("StorageCodec(%q): %v", mediaType, err)
	}
	return c
}

// TestStorageCodecRoundTrip: each media type encodes as it says (protobuf
// with kube-apiserver's k8s\x00 prefix) and both codecs decode what
// either wrote into the same object, apiVersion and kind set.
func TestStorageCodecRoundTrip(t *testing.T) {
	pod := newPod("web")
	pod.Namespace, pod.UID, pod.Labels = "default", "uid-1", map[string]string{"app": "web"}
	for _, writer := range []string{registry.StorageMediaTypeJSON, registry.StorageMediaTypeProtobuf} {
		var buf bytes.Buffer
		if err := mustStorageCodec(t, writer).Encode(pod, &buf); err != nil {
			t.Fatalf("encode as %s: %v", writer, err)
		}
		if got, want := registry.IsProtobuf(buf.Bytes()), writer == registry.StorageMediaTypeProtobuf; got != want {
			t.Fatalf("encoded as %s: IsProtobuf = %v, want %v (value starts %q)", writer, got, want, buf.Bytes()[:8])
		}
		for _, reader := range []string{registry.StorageMediaTypeJSON, registry.StorageMediaTypeProtobuf} {
			obj, _, err := mustStorageCodec(t, reader).Decode(buf.Bytes(), nil, &corev1.Pod{})
			if err != nil {
				t.Fatalf("written as %s, read with %s: %v", writer, reader, err)
			}
			got := obj.(*corev1.Pod)
			if gvk := got.GroupVersionKind(); gvk.Kind != "Pod" || gvk.Version != "v1" {
				t.Errorf("written as %s, read with %s: kind %v, want v1 Pod", writer, reader, gvk)
			}
			got.TypeMeta = metav1.TypeMeta{}
			if !apiequality.Semantic.DeepEqual(got, pod) {
				t.Errorf("written as %s, read with %s: got %+v, want %+v", writer, reader, got, pod)
			}
		}
	}
}

// TestStorageCodecDecodesAsTheJSONSerializer: the fast path into a
// typed object gives what the JSON serializer gives (object or error) for
// values of the kind, of another kind, without a kind, and not objects.
func TestStorageCodecDecodesAsTheJSONSerializer(t *testing.T) {
	c := mustStorageCodec(t, registry.StorageMediaTypeJSON)
	for _, data := range []string{
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"}},"spec":{"priority":7}}`,
		`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`,
		`{"metadata":{"name":"p"}}`,
		`null`,
		`not json`,
		`{"apiVersion":"v1","kind":"Pod","spec":{"priority":"seven"}}`,
	} {
		got, _, gotErr := c.Decode([]byte(data), nil, &corev1.Pod{})
		want, _, wantErr := registry.JSONSerializer.Decode([]byte(data), nil, &corev1.Pod{})
		if (gotErr != nil) != (wantErr != nil) {
			t.Errorf("Decode(%s): err = %v, the JSON serializer's = %v", data, gotErr, wantErr)
			continue
		}
		if gotErr == nil && !apiequality.Semantic.DeepEqual(got, want) {
			t.Errorf("Decode(%s) = %#v, the JSON serializer's = %#v", data, got, want)
		}
	}
}

// TestStorageMediaTypeValidation: a media type kubesim does not store is
// rejected by name, with the two it takes.
func TestStorageMediaTypeValidation(t *testing.T) {
	for _, ok := range []string{"", registry.StorageMediaTypeJSON, registry.StorageMediaTypeProtobuf} {
		if err := registry.ValidateStorageMediaType(ok); err != nil {
			t.Errorf("ValidateStorageMediaType(%q) = %v, want nil", ok, err)
		}
	}
	err := registry.ValidateStorageMediaType("application/yaml")
	if err == nil || !strings.Contains(err.Error(), `"application/yaml"`) || !strings.Contains(err.Error(), registry.StorageMediaTypeProtobuf) {
		t.Errorf("ValidateStorageMediaType(application/yaml) = %v, want an error naming it and the supported types", err)
	}
	if _, err := registry.New(registry.StoreConfig{Client: etcdtest.Start(t).Client(), StorageMediaType: "text/plain"}); err == nil {
		t.Error("registry.New with storage media type text/plain: no error")
	}
}

// TestStorageMediaTypeSwitch: objects written as JSON are read, listed
// and updated by a registry that stores protobuf on the same etcd, the
// update stores protobuf, and a JSON registry reads that back.
func TestStorageMediaTypeSwitch(t *testing.T) {
	ctx := context.Background()
	e := etcdtest.Start(t)
	open := func(mediaType string) *registry.Registry {
		r, err := registry.New(registry.StoreConfig{Client: e.Client(), StorageMediaType: mediaType})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	stored := func(key string) []byte {
		resp, err := e.Client().Get(ctx, key)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("read %s: %v (%d keys)", key, err, len(resp.Kvs))
		}
		return resp.Kvs[0].Value
	}
	asJSON, asProto := open(registry.StorageMediaTypeJSON), open(registry.StorageMediaTypeProtobuf)
	created := mustCreatePod(t, asJSON, newPod("web"))
	key := asJSON.Pods.Key("default", "web")
	if v := stored(key); registry.IsProtobuf(v) || v[0] != '{' {
		t.Fatalf("JSON registry stored %q", v[:8])
	}
	if got := getPod(t, asProto, "web"); got.UID != created.UID || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("protobuf registry read uid %s rv %s, want %s %s", got.UID, got.ResourceVersion, created.UID, created.ResourceVersion)
	}
	list, err := asProto.Pods.List(ctx, "default", nil)
	if err != nil || len(list.(*corev1.PodList).Items) != 1 {
		t.Fatalf("protobuf registry list: %v, %v", list, err)
	}
	_, _, err = asProto.Pods.Update(ctx, "default", "web", func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod).DeepCopy()
		p.Labels = map[string]string{"rewritten": "protobuf"}
		return p, nil
	}, nil, nil, registry.Options{})
	if err != nil {
		t.Fatalf("protobuf registry update: %v", err)
	}
	if v := stored(key); !registry.IsProtobuf(v) {
		t.Fatalf("after the protobuf registry's update, etcd holds %q, want the k8s\\x00 prefix", v[:8])
	}
	if got := getPod(t, asJSON, "web"); got.Labels["rewritten"] != "protobuf" || got.UID != created.UID {
		t.Fatalf("JSON registry read back labels %v uid %s", got.Labels, got.UID)
	}
}

// TestStoredKindIsTheResourceKind: every built-in resource is stored with
// its Resource.Kind, which the watch cache gives the copies it takes of
// what a store created (storage.Config.Kind).
func TestStoredKindIsTheResourceKind(t *testing.T) {
	r, err := registry.New(registry.StoreConfig{Client: etcdtest.Start(t).Client()})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range []*registry.Store{r.Pods, r.Nodes, r.Namespaces, r.Events, r.Leases,
		r.ConfigMaps, r.Secrets, r.ServiceAccounts, r.Services, r.Endpoints,
		r.EndpointSlices, r.Deployments, r.ReplicaSets,
		r.Roles, r.ClusterRoles, r.RoleBindings, r.ClusterRoleBindings,
		r.CustomResourceDefinitions, r.APIServices} {
		for _, mt := range []string{registry.StorageMediaTypeJSON, registry.StorageMediaTypeProtobuf} {
			var buf bytes.Buffer
			if err := mustStorageCodec(t, mt).Encode(st.Resource.NewFunc(), &buf); err != nil {
				t.Fatalf("%s as %s: %v", st.Resource.Plural, mt, err)
			}
			obj, _, err := mustStorageCodec(t, mt).Decode(buf.Bytes(), nil, st.Resource.NewFunc())
			if err != nil {
				t.Fatalf("%s as %s: %v", st.Resource.Plural, mt, err)
			}
			if got := obj.GetObjectKind().GroupVersionKind(); got != st.Resource.Kind {
				t.Errorf("%s stored as %s has kind %v, its Resource says %v", st.Resource.Plural, mt, got, st.Resource.Kind)
			}
		}
	}
}
