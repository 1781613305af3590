package aggregatorserver

import (
	"context"

	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// storeInformer returns a client-go informer on st that lists and watches
// the store in the process, without HTTP: what the aggregator's informers
// get from their loopback client upstream. It runs once started (Run).
func storeInformer(st *registry.Store, example runtime.Object) cache.SharedIndexInformer {
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
	return cache.NewSharedIndexInformer(lw, example, 0, cache.Indexers{})
}
