package apiextensionsserver

import (
	"context"
	"sync"
	"time"
)

// The watch caches of custom resources. As upstream gives every custom
// resource's storage a cacher, kubesim runs the watch cache of each served
// version's store (storage.Store.Run) from the moment the version is first
// served until its CRD changes or goes away, or the server stops: watches
// and resourceVersion="0" lists of custom resources are served from
// memory, with the same history window and 410 as the built-in resources.

// crdCaches owns the goroutines of those watch caches. Its zero value
// runs none until run is called.
type crdCaches struct {
	mu     sync.Mutex
	ctx    context.Context // nil until run; the server's lifetime
	closed bool
	wg     sync.WaitGroup
}

// crdCacheStartTimeout bounds the wait for a new cache's first list.
const crdCacheStartTimeout = 10 * time.Second

// run makes the caches startable until ctx is done, then waits for every
// one of them to stop. A post-start hook runs it (ctx.Go).
func (cc *crdCaches) run(ctx context.Context) {
	cc.mu.Lock()
	cc.ctx = ctx
	cc.mu.Unlock()
	<-ctx.Done()
	cc.mu.Lock()
	cc.closed = true
	cc.mu.Unlock()
	cc.wg.Wait()
}

// start runs the watch cache of each version's store of sv until stop is
// called or the server stops, and waits (a bounded time) until they serve
// watchers. Before run or after the server stopped it starts nothing:
// watches then go to etcd.
func (cc *crdCaches) start(sv *crdServing) {
	cc.mu.Lock()
	if cc.ctx == nil || cc.closed {
		cc.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(cc.ctx)
	sv.stopCaches = cancel
	cc.wg.Add(len(sv.versions))
	cc.mu.Unlock()
	for _, v := range sv.versions {
		go func() {
			defer cc.wg.Done()
			v.stores.Main.Storage().Run(ctx)
		}()
	}
	wait, done := context.WithTimeout(ctx, crdCacheStartTimeout)
	defer done()
	for _, v := range sv.versions {
		_ = v.stores.Main.Storage().WaitForWatchCache(wait) // on timeout watches wait on their own
	}
}

// stop ends sv's caches (nil-safe: a serving without caches).
func (sv *crdServing) stop() {
	if sv != nil && sv.stopCaches != nil {
		sv.stopCaches()
	}
}
