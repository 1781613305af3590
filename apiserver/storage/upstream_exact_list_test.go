package storage_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	etcdk8s "go.etcd.io/etcd/client/v3/kubernetes"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apistorage "k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/cacher"
	"k8s.io/apiserver/pkg/storage/etcd3"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	testingclock "k8s.io/utils/clock/testing"

	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestUpstreamExactListAfterCompaction runs k8s.io/apiserver v0.37.2's own
// watch cache (cacher, with ListFromCacheSnapshot on by default) over
// etcd beside kubesim's Store, and checks what watch-resume-410's
// list-compacted step says of both: after etcd compacted past a pod's
// create, a list at exactly that resourceVersion is 410 from kubesim at
// once, while upstream answers it from its snapshot; upstream too answers
// 410 once its compactor poll (every 15 s, on the cacher's clock, stepped
// here) has learned of the compaction from compact_rev_key.
func TestUpstreamExactListAfterCompaction(t *testing.T) {
	// Upstream's cache serves the list from its snapshot only if its own
	// etcd watch was not cut by the compaction too: on a starved machine
	// that watch may lag, get "required revision has been compacted" and
	// make the cache relist, dropping its snapshots (kube-apiserver would
	// do the same). So a 410 there is tried again, with a fresh etcd, a
	// few times; only a 410 every time fails.
	const attempts = 3
	for i := 1; ; i++ {
		err := exactListAfterCompaction(t)
		if err == nil {
			return
		}
		if i == attempts {
			t.Fatalf("upstream, Exact list after a direct compaction, %d times: %v, want it served from the cache's snapshot", attempts, err)
		}
		t.Logf("attempt %d: upstream answered %v (its cache's watch cut by the compaction?): again", i, err)
	}
}

// exactListAfterCompaction makes one run of the test: it returns
// upstream's error to the first Exact list after the direct compaction,
// and checks the rest itself.
func exactListAfterCompaction(t *testing.T) error {
	e := etcdtest.Start(t)
	ctx := context.Background()
	clk := testingclock.NewFakeClock(time.Now())
	up := upstreamPods(t, e.Client(), clk)
	out := &corev1.Pod{}
	if err := up.Create(ctx, "/pods/default/web", pod("default", "web", nil), out, 0); err != nil {
		t.Fatal(err)
	}
	rv := out.ResourceVersion
	exact := apistorage.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact,
		Predicate: apistorage.Everything, Recursive: true}
	waitUpstreamList(t, up, exact) // the cache has seen the create
	ks, err := storage.New(storage.Config{Client: e.Client(), Codec: storeCodec(), Prefix: prefix,
		NewFunc: func() runtime.Object { return &corev1.Pod{} }, NewListFunc: func() runtime.Object { return &corev1.PodList{} }})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := e.Client().Put(ctx, "/other", "y")
	if err != nil {
		t.Fatal(err)
	}
	// A compaction made directly, as the compactEtcd step makes it.
	if _, err := e.Client().Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	if err := up.GetList(ctx, "/pods/default/", exact, &corev1.PodList{}); err != nil {
		return err
	}
	_, err = ks.GetList(ctx, prefix+"default/", storage.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) {
		t.Errorf("kubesim, Exact list at a compacted revision: %v, want 410 Expired at once", err)
	}
	// kube-apiserver's own compactor writes compact_rev_key; upstream's
	// etcd client watches it, and the cache reads what it learned every 15s.
	if _, err := e.Client().Put(ctx, storage.CompactRevKey, strconv.FormatInt(resp.Header.Revision, 10)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(waitTimeout)
	for {
		clk.Step(15 * time.Second)
		err := up.GetList(ctx, "/pods/default/", exact, &corev1.PodList{})
		if apierrors.IsResourceExpired(err) {
			return nil
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream, Exact list at %s after compact_rev_key said %d: %v after %v, want 410 Expired", rv, resp.Header.Revision, err, waitTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// upstreamPods is k8s.io/apiserver's etcd3 store of pods under /registry
// with its watch cache in front (CacheDelegator), the cache on clk.
func upstreamPods(t *testing.T, c *clientv3.Client, clk *testingclock.FakeClock) apistorage.Interface {
	t.Helper()
	kc := &etcdk8s.Client{Client: c}
	kc.Kubernetes = kc
	codec := storeCodec()
	newFunc := func() runtime.Object { return &corev1.Pod{} }
	newListFunc := func() runtime.Object { return &corev1.PodList{} }
	versioner := apistorage.APIObjectVersioner{}
	compactor := etcd3.NewCompactor(c, 0, clk, nil)
	t.Cleanup(compactor.Stop)
	gr := schema.GroupResource{Resource: "pods"}
	s, err := etcd3.New(kc, compactor, codec, newFunc, newListFunc, "/registry", "/pods", gr,
		identity.NewEncryptCheckTransformer(), etcd3.NewDefaultLeaseManagerConfig(), etcd3.NewDefaultDecoder(codec, versioner), versioner)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := cacher.NewCacherFromConfig(cacher.Config{
		Storage:             s,
		Versioner:           versioner,
		GroupResource:       gr,
		ResourcePrefix:      "/pods",
		KeyFunc:             func(obj runtime.Object) (string, error) { return apistorage.NamespaceKeyFunc("/pods/", obj) },
		GetAttrsFunc:        apistorage.DefaultNamespaceScopedAttr,
		EventsHistoryWindow: 75 * time.Second, // kube-apiserver's least
		NewFunc:             newFunc,
		NewListFunc:         newListFunc,
		Codec:               codec,
		Clock:               clk,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ch.Stop)
	return cacher.NewCacheDelegator(ch, s)
}

// waitUpstreamList waits until s answers the list opts.
func waitUpstreamList(t *testing.T, s apistorage.Interface, opts apistorage.ListOptions) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		err := s.GetList(context.Background(), "/pods/default/", opts, &corev1.PodList{})
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("upstream list %+v: %v after %v", opts, err, waitTimeout)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
