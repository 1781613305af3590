package registry

import (
	"bytes"
	"fmt"
	"io"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// The media types objects may be stored in (kube-apiserver's
// --storage-media-type). Upstream's default is protobuf; kubesim's is
// JSON, so that lessons can show etcd's values as they are.
const (
	StorageMediaTypeJSON     = "application/json"
	StorageMediaTypeProtobuf = "application/vnd.kubernetes.protobuf"
	// DefaultStorageMediaType is kubesim's default.
	DefaultStorageMediaType = StorageMediaTypeJSON
)

// protobufPrefix starts every value kube-apiserver's protobuf serializer
// writes: "k8s" and a zero byte, then a runtime.Unknown holding
// apiVersion, kind and the object's own protobuf bytes.
var protobufPrefix = []byte{0x6b, 0x38, 0x73, 0x00}

// IsProtobuf reports whether a stored value is in Kubernetes' protobuf
// envelope (starts with "k8s\x00").
func IsProtobuf(value []byte) bool { return bytes.HasPrefix(value, protobufPrefix) }

// ValidateStorageMediaType checks a --storage-media-type: "" (the
// default) or one of the two kubesim stores. kube-apiserver also takes
// application/yaml; kubesim does not store YAML.
func ValidateStorageMediaType(mediaType string) error {
	switch mediaType {
	case "", StorageMediaTypeJSON, StorageMediaTypeProtobuf:
		return nil
	}
	return fmt.Errorf("storage media type %q is not supported: use %s or %s", mediaType, StorageMediaTypeJSON, StorageMediaTypeProtobuf)
}

// StorageCodec returns the codec of the built-in resources' stored
// values for mediaType ("" is DefaultStorageMediaType): it encodes in
// that media type, with apiVersion and kind set from the scheme, and
// decodes either, whatever mediaType says, recognising protobuf by its
// prefix, as kube-apiserver's storage decoder recognises the encodings
// it knows. A data dir written with one media type thus opens with the
// other, and holds a mix of both as objects are rewritten.
func StorageCodec(mediaType string) (runtime.Codec, error) {
	if err := ValidateStorageMediaType(mediaType); err != nil {
		return nil, err
	}
	var enc runtime.Encoder = JSONSerializer
	if mediaType == StorageMediaTypeProtobuf {
		enc = Protobuf
	}
	versioned := runtime.WithVersionEncoder{Version: schema.GroupVersions(GroupVersions), Encoder: enc, ObjectTyper: Scheme}
	return storageCodec{Encoder: versioned}, nil
}

// storageCodec encodes with its Encoder and decodes both media types.
type storageCodec struct {
	runtime.Encoder
}

// Identifier names the codec after its encoder.
func (c storageCodec) Identifier() runtime.Identifier {
	return runtime.Identifier("storage:" + string(c.Encoder.Identifier()))
}

// Encode writes obj in the codec's media type.
func (c storageCodec) Encode(obj runtime.Object, w io.Writer) error { return c.Encoder.Encode(obj, w) }

// Decode reads a stored value of either media type into into.
func (c storageCodec) Decode(data []byte, gvk *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if IsProtobuf(data) {
		return Protobuf.Decode(data, gvk, into)
	}
	if obj, actual, ok := decodeTypedJSON(data, into); ok {
		return obj, actual, nil
	}
	if into != nil {
		into = freshObject(into)
	}
	return JSONSerializer.Decode(data, gvk, into)
}

// decodeTypedJSON is the JSON serializer's decoding into a typed object
// without its first pass, which parses the whole value once only to find
// apiVersion and kind: the value is unmarshalled into into at once (case
// sensitively, integers kept as integers, as the serializer does), and
// the apiVersion and kind that come with it must be one of into's kinds.
// false: the value is something else (another kind, not JSON, no kind),
// and into may hold part of it; the caller decodes it the slow way.
func decodeTypedJSON(data []byte, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, bool) {
	if into == nil {
		return nil, nil, false
	}
	if _, unstructured := into.(runtime.Unstructured); unstructured {
		return nil, nil, false
	}
	kinds, _, err := Scheme.ObjectKinds(into)
	if err != nil {
		return nil, nil, false
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, into); err != nil {
		return nil, nil, false
	}
	got := into.GetObjectKind().GroupVersionKind()
	for _, k := range kinds {
		if k == got {
			return into, &got, true
		}
	}
	return nil, nil, false
}

// freshObject returns an empty object of obj's type.
func freshObject(obj runtime.Object) runtime.Object {
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer {
		return obj
	}
	fresh, ok := reflect.New(t.Elem()).Interface().(runtime.Object)
	if !ok {
		return obj
	}
	return fresh
}
