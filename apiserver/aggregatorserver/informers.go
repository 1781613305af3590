package aggregatorserver

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// storeInformer returns a client-go informer on st that lists and watches
// the store in the process, without HTTP: what the aggregator's informers
// get from their loopback client upstream. It runs once started (Run).
func storeInformer(st *registry.Store, example runtime.Object) cache.SharedIndexInformer {
	return registry.NewInformer(st, example, nil)
}
