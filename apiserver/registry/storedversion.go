package registry

import (
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// StoredVersion is how a resource served in a version other than the one
// its objects are stored in (autoscaling/v1 horizontalpodautoscalers,
// stored as autoscaling/v2) reads and writes them: its store converts
// each object on its way to etcd and back, so that both versions serve
// the same objects, as kube-apiserver's storage version does.
type StoredVersion struct {
	// NewStored returns an empty object of the stored version.
	NewStored func() runtime.Object
	// ToStored converts an object of the served version to the stored
	// one; FromStored converts back.
	ToStored   func(obj runtime.Object) (runtime.Object, error)
	FromStored func(stored runtime.Object) (runtime.Object, error)
}

// convertingCodec is the storage codec of a resource with a
// StoredVersion: the codec of the stored version, with the conversions
// around it.
type convertingCodec struct {
	runtime.Codec
	v *StoredVersion
}

// Encode converts obj to the stored version and encodes that.
func (c convertingCodec) Encode(obj runtime.Object, w io.Writer) error {
	stored, err := c.v.ToStored(obj)
	if err != nil {
		return err
	}
	return c.Codec.Encode(stored, w)
}

// Decode decodes a stored value and converts it to the served version;
// into is not used (the conversion makes a new object).
func (c convertingCodec) Decode(data []byte, _ *schema.GroupVersionKind, _ runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	stored, _, err := c.Codec.Decode(data, nil, c.v.NewStored())
	if err != nil {
		return nil, nil, err
	}
	obj, err := c.v.FromStored(stored)
	if err != nil {
		return nil, nil, err
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return obj, &gvk, nil
}
