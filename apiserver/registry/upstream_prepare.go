package registry

import "k8s.io/apimachinery/pkg/runtime"

// upstreamPrepare returns a Strategy.PrepareForUpdate that runs prepare,
// the body of an upstream strategy's PrepareForCreate or
// PrepareForUpdate, on obj and old converted to the internal type (old
// nil on create), and writes what it made of obj back into obj, keeping
// obj's apiVersion and kind. It is for the strategies that call
// upstream's helpers on the internal type (pvcutil.NormalizeDataSources
// ...). An object that does not convert is left alone: its validation
// reports the conversion error.
func upstreamPrepare[V, I any](to convertFunc[V, I], from convertFunc[I, V], prepare func(obj, old *I)) func(obj, old runtime.Object) {
	return func(obj, old runtime.Object) {
		in := new(I)
		if to(any(obj).(*V), in, nil) != nil {
			return
		}
		var oldIn *I
		if old != nil {
			oldIn = new(I)
			if to(any(old).(*V), oldIn, nil) != nil {
				return
			}
		}
		prepare(in, oldIn)
		out := new(V)
		if from(in, out, nil) != nil {
			return
		}
		gvk := obj.GetObjectKind().GroupVersionKind()
		*any(obj).(*V) = *out
		obj.GetObjectKind().SetGroupVersionKind(gvk)
	}
}
