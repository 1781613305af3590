package apiserver_test

// Tests named after the Kubernetes conformance tests they follow, driven
// through client-go as those tests are.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// expectEvent reads the next event and checks its type and the pod's
// name; it returns the pod.
func expectEvent(tb testing.TB, w watch.Interface, typ watch.EventType, name string) *corev1.Pod {
	tb.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			tb.Fatalf("watch closed, want %s %s", typ, name)
		}
		p, isPod := ev.Object.(*corev1.Pod)
		if ev.Type != typ || !isPod || p.Name != name {
			tb.Fatalf("got %s %v, want %s %s", ev.Type, describeObj(ev.Object), typ, name)
		}
		return p
	case <-time.After(waitTimeout):
		tb.Fatalf("no event within %v, want %s %s", waitTimeout, typ, name)
	}
	return nil
}

// expectNoEvent checks that nothing arrives for a short while.
func expectNoEvent(tb testing.TB, w watch.Interface, d time.Duration) {
	tb.Helper()
	select {
	case ev := <-w.ResultChan():
		tb.Fatalf("got %s %v, want no event", ev.Type, describeObj(ev.Object))
	case <-time.After(d):
	}
}

func describeObj(obj any) string {
	switch o := obj.(type) {
	case *corev1.Pod:
		return fmt.Sprintf("pod %s rv=%s", o.Name, o.ResourceVersion)
	case *metav1.Status:
		return fmt.Sprintf("status %d %s", o.Code, o.Message)
	}
	return fmt.Sprintf("%T", obj)
}

func setLabel(tb testing.TB, c kubernetes.Interface, name, key, value string) *corev1.Pod {
	tb.Helper()
	p, err := c.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[key] = value
	out, err := c.CoreV1().Pods("default").Update(context.Background(), p, metav1.UpdateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func watchPods(tb testing.TB, c kubernetes.Interface, opts metav1.ListOptions) watch.Interface {
	tb.Helper()
	w, err := c.CoreV1().Pods("default").Watch(context.Background(), opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Stop)
	return w
}

// retryWatchPods watches the pods of default from rv with client-go's
// RetryWatcher, which watches again from the last resourceVersion it
// delivered when a watch ends.
func retryWatchPods(tb testing.TB, c kubernetes.Interface, rv string) watch.Interface {
	tb.Helper()
	lw := &cache.ListWatch{WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
		return c.CoreV1().Pods("default").Watch(context.Background(), opts)
	}}
	w, err := watchtools.NewRetryWatcher(rv, lw)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(w.Stop)
	return w
}

func TestWatchConformance(t *testing.T) {
	ctx := context.Background()

	t.Run("should observe add, update, and delete watch notifications", func(t *testing.T) {
		ts := startServer(t)
		c := ts.client
		wA := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this=A"})
		wB := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this=B"})
		wAB := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this in (A,B)"})

		mustCreatePod(t, c, "default", testPod("a", map[string]string{"watch-this": "A"}))
		expectEvent(t, wA, watch.Added, "a")
		expectEvent(t, wAB, watch.Added, "a")
		setLabel(t, c, "a", "mutation", "1")
		expectEvent(t, wA, watch.Modified, "a")
		expectEvent(t, wAB, watch.Modified, "a")
		setLabel(t, c, "a", "mutation", "2")
		expectEvent(t, wA, watch.Modified, "a")
		expectEvent(t, wAB, watch.Modified, "a")
		if err := c.CoreV1().Pods("default").Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		expectEvent(t, wA, watch.Modified, "a") // deletionTimestamp set (unbound: grace 0)
		expectEvent(t, wA, watch.Deleted, "a")
		expectEvent(t, wAB, watch.Modified, "a")
		expectEvent(t, wAB, watch.Deleted, "a")
		expectNoEvent(t, wB, 100*time.Millisecond)

		mustCreatePod(t, c, "default", testPod("b", map[string]string{"watch-this": "B"}))
		expectEvent(t, wB, watch.Added, "b")
		expectEvent(t, wAB, watch.Added, "b")
		expectNoEvent(t, wA, 100*time.Millisecond)
	})

	t.Run("should be able to start watching from a specific resource version", func(t *testing.T) {
		ts := startServer(t)
		c := ts.client
		mustCreatePod(t, c, "default", testPod("p", nil))
		first := setLabel(t, c, "p", "mutation", "1")
		second := setLabel(t, c, "p", "mutation", "2")
		third := setLabel(t, c, "p", "mutation", "3")
		w := watchPods(t, c, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
		if got := expectEvent(t, w, watch.Modified, "p"); got.ResourceVersion != second.ResourceVersion || got.Labels["mutation"] != "2" {
			t.Errorf("first event rv %s mutation %s, want the second update (rv %s)", got.ResourceVersion, got.Labels["mutation"], second.ResourceVersion)
		}
		if got := expectEvent(t, w, watch.Modified, "p"); got.ResourceVersion != third.ResourceVersion {
			t.Errorf("second event rv %s, want %s", got.ResourceVersion, third.ResourceVersion)
		}
		expectNoEvent(t, w, 100*time.Millisecond)
	})

	t.Run("should be able to restart watching from the last resource version observed by the previous watch", func(t *testing.T) {
		ts := startServer(t)
		c := ts.client
		w := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this=restart"})
		mustCreatePod(t, c, "default", testPod("p", map[string]string{"watch-this": "restart"}))
		expectEvent(t, w, watch.Added, "p")
		setLabel(t, c, "p", "mutation", "1")
		last := expectEvent(t, w, watch.Modified, "p")
		w.Stop()

		setLabel(t, c, "p", "mutation", "2")
		if err := c.CoreV1().Pods("default").Delete(ctx, "p", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w2 := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this=restart", ResourceVersion: last.ResourceVersion})
		if got := expectEvent(t, w2, watch.Modified, "p"); got.Labels["mutation"] != "2" {
			t.Errorf("first event after restart has mutation %q, want 2", got.Labels["mutation"])
		}
		expectEvent(t, w2, watch.Modified, "p")
		expectEvent(t, w2, watch.Deleted, "p")
	})

	t.Run("should observe an object deletion if it stops meeting the requirements of the selector", func(t *testing.T) {
		ts := startServer(t)
		c := ts.client
		w := watchPods(t, c, metav1.ListOptions{LabelSelector: "watch-this=selector"})
		mustCreatePod(t, c, "default", testPod("p", map[string]string{"watch-this": "selector"}))
		expectEvent(t, w, watch.Added, "p")
		setLabel(t, c, "p", "mutation", "1")
		expectEvent(t, w, watch.Modified, "p")
		setLabel(t, c, "p", "watch-this", "something-else")
		gone := expectEvent(t, w, watch.Deleted, "p")
		if gone.Labels["watch-this"] != "selector" {
			t.Errorf("DELETED carries label %q, want the last matching state", gone.Labels["watch-this"])
		}
		setLabel(t, c, "p", "mutation", "2") // still not matching: nothing
		expectNoEvent(t, w, 100*time.Millisecond)
		setLabel(t, c, "p", "watch-this", "selector")
		expectEvent(t, w, watch.Added, "p")
	})

	t.Run("should receive events on concurrent watches in same order", func(t *testing.T) {
		ts := startServer(t)
		c := ts.client
		list, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		const watchers, writers, perWriter = 5, 4, 15
		// Each watcher is a RetryWatcher, as upstream's conformance test
		// makes them: a watch the watch cache drops for falling behind (on
		// a starved machine) is made again from the last resourceVersion
		// read, and the order it sees must still be the same.
		var ws []watch.Interface
		for i := 0; i < watchers; i++ {
			ws = append(ws, retryWatchPods(t, c, list.ResourceVersion))
		}
		var wg sync.WaitGroup
		for g := 0; g < writers; g++ {
			wg.Add(1)
			go func(g int) {
				defer wg.Done()
				for i := 0; i < perWriter; i++ {
					name := fmt.Sprintf("p-%d-%d", g, i)
					if _, err := c.CoreV1().Pods("default").Create(ctx, testPod(name, nil), metav1.CreateOptions{}); err != nil {
						t.Error(err)
						return
					}
					if i%3 == 0 {
						if err := c.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
							t.Error(err)
						}
					}
				}
			}(g)
		}
		wg.Wait()
		// Every create is one event, every delete of an unbound pod two.
		total := writers*perWriter + 2*writers*((perWriter+2)/3)
		var first []string
		for i, w := range ws {
			var got []string
			for len(got) < total {
				select {
				case ev := <-w.ResultChan():
					got = append(got, string(ev.Type)+" "+describeObj(ev.Object))
				case <-time.After(waitTimeout):
					t.Fatalf("watcher %d got %d of %d events", i, len(got), total)
				}
			}
			if i == 0 {
				first = got
			} else if fmt.Sprint(got) != fmt.Sprint(first) {
				t.Errorf("watcher %d order differs from watcher 0", i)
			}
		}
	})
}

func TestListChunkingConformance(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	c := ts.client
	const n = 40
	for i := 0; i < n; i++ {
		mustCreatePod(t, c, "default", testPod(fmt.Sprintf("template-%04d", i), nil))
	}

	t.Run("should return chunks of results for list calls", func(t *testing.T) {
		var seen int
		var rv string
		opts := metav1.ListOptions{Limit: 7}
		for page := 0; ; page++ {
			list, err := c.CoreV1().Pods("default").List(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Items) > 7 {
				t.Fatalf("page %d has %d items, limit 7", page, len(list.Items))
			}
			for i, p := range list.Items {
				if want := fmt.Sprintf("template-%04d", seen+i); p.Name != want {
					t.Fatalf("page %d item %d is %s, want %s", page, i, p.Name, want)
				}
			}
			seen += len(list.Items)
			if page == 0 {
				rv = list.ResourceVersion
				// Writes between pages do not show up.
				mustCreatePod(t, c, "default", testPod("zz-late", nil))
			} else if list.ResourceVersion != rv {
				t.Errorf("page %d resourceVersion %s, want the first page's %s", page, list.ResourceVersion, rv)
			}
			if list.Continue == "" {
				if list.RemainingItemCount != nil {
					t.Errorf("last page has remainingItemCount %d", *list.RemainingItemCount)
				}
				break
			}
			if list.RemainingItemCount == nil || int(*list.RemainingItemCount) != n-seen {
				t.Errorf("page %d remainingItemCount %v, want %d", page, list.RemainingItemCount, n-seen)
			}
			opts.Continue = list.Continue
		}
		if seen != n {
			t.Errorf("paged through %d pods, want %d", seen, n)
		}
	})

	t.Run("should support continue listing from the last key if the original version has been compacted away, though the list is inconsistent", func(t *testing.T) {
		list, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		last := mustCreatePod(t, c, "default", testPod("zz-later", nil))
		var rev int64
		fmt.Sscan(last.ResourceVersion, &rev)
		if _, err := ts.etcd.Compact(ctx, rev); err != nil {
			t.Fatal(err)
		}
		_, err = c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{Limit: 10, Continue: list.Continue})
		status, ok := err.(apierrors.APIStatus)
		if !ok || status.Status().Code != 410 || status.Status().ListMeta.Continue == "" {
			t.Fatalf("err = %v, want 410 Expired with a continue token", err)
		}
		next, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{Limit: 100, Continue: status.Status().ListMeta.Continue})
		if err != nil {
			t.Fatal(err)
		}
		if len(next.Items) != n+2-10 || next.Items[0].Name != "template-0010" {
			t.Errorf("inconsistent continuation returned %d items starting %s, want the rest (%d) from template-0010", len(next.Items), next.Items[0].Name, n+2-10)
		}
	})
}
