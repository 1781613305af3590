package registry

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// NewInformer returns a client-go informer on st that lists and watches
// the store in the process, without HTTP: what the informers of
// kube-apiserver's own components (the aggregator's controllers, its
// admission plugins) get from their loopback client upstream. Its
// objects are those of example's type; indexers may be nil. It runs
// once started (Run).
func NewInformer(st *Store, example runtime.Object, indexers cache.Indexers) cache.SharedIndexInformer {
	internal := func(opts metav1.ListOptions) (*metainternalversion.ListOptions, error) {
		var in metainternalversion.ListOptions
		if err := metainternalversion.Convert_v1_ListOptions_To_internalversion_ListOptions(&opts, &in, nil); err != nil {
			return nil, err
		}
		return &in, nil
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
			in, err := internal(opts)
			if err != nil {
				return nil, err
			}
			return st.List(ctx, "", in)
		},
		WatchFuncWithContext: func(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
			in, err := internal(opts)
			if err != nil {
				return nil, err
			}
			return st.Watch(ctx, "", in)
		},
	}
	if indexers == nil {
		indexers = cache.Indexers{}
	}
	return cache.NewSharedIndexInformer(lw, example, 0, indexers)
}
