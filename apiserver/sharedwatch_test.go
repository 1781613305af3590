package apiserver_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// Many watchers get the same decoded objects from the watch cache; each
// encodes them for its own client at the same time as the others. (Run
// with -race: encoding must not write to the shared objects.)
func TestWatchersShareObjectsSafely(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	const watchers, pods = 4, 30
	list, err := ts.client.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ws []watch.Interface
	for range watchers {
		ws = append(ws, watchPods(t, ts.client, metav1.ListOptions{ResourceVersion: list.ResourceVersion}))
	}
	for i := range pods {
		mustCreatePod(t, ts.client, "default", testPod(fmt.Sprintf("p%02d", i), nil))
	}
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := map[string]bool{}
			deadline := time.After(waitTimeout)
			for len(seen) < pods {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Errorf("watcher %d: stream ended after %d pods", i, len(seen))
						return
					}
					if ev.Type == watch.Added {
						m, err := meta.Accessor(ev.Object)
						if err != nil {
							t.Errorf("watcher %d: %v", i, err)
							return
						}
						seen[m.GetName()] = true
					}
				case <-deadline:
					t.Errorf("watcher %d saw %d of %d pods", i, len(seen), pods)
					return
				}
			}
		}()
	}
	wg.Wait()
}
