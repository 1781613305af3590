package kubelet

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	ktesting "k8s.io/client-go/testing"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestHollowEventGroups: hollow kubelets share a broadcaster per group
// of size; each kubelet's events are written through its own client with
// its node as the source host; one that leaves has its later events
// dropped while the others of its group go on, and so are those of one
// whose sink closed, or whose context ended, before it left (not retried
// while the group waits); the last to leave a group ends it.
func TestHollowEventGroups(t *testing.T) {
	e := &hollowEvents{size: 2}
	ctx := context.Background()
	nodes := []string{"hollow-1", "hollow-2", "hollow-3"}
	clients := map[string]*fake.Clientset{}
	record := map[string]func(reason string){}
	leave := map[string]func(){}
	sinks := map[string]*eventSink{}
	cancels := map[string]context.CancelFunc{}
	join := func(n string) {
		clients[n] = fake.NewClientset()
		kctx, cancel := context.WithCancel(ctx)
		cancels[n] = cancel
		sinks[n] = newEventSink(kctx, clients[n].CoreV1().Events(""))
		r, l := e.join(n, sinks[n])
		ref := &corev1.ObjectReference{Kind: "Node", Name: n, UID: types.UID("uid-" + n)}
		record[n] = func(reason string) { r.Event(ref, corev1.EventTypeNormal, reason, "test") }
		leave[n] = l
	}
	for _, n := range nodes {
		join(n)
	}
	if len(e.groups) != 2 {
		t.Fatalf("3 kubelets in groups of 2: %d groups, want 2", len(e.groups))
	}
	for _, n := range nodes {
		record[n](ReasonStarting)
	}
	for _, n := range nodes {
		waitEvents(t, clients[n], n, 1)
	}

	leave[nodes[0]]()
	record[nodes[0]]("AfterLeaving") // its group's one goroutine drops it ...
	record[nodes[1]]("SameGroup")    // ... before writing this one
	waitEvents(t, clients[nodes[1]], nodes[1], 2)
	if got := events(t, clients[nodes[0]]); len(got) != 1 {
		t.Errorf("%s wrote %d events, want 1 (none after leaving)", nodes[0], len(got))
	}
	// A kubelet whose sink closes while the group still routes to it
	// (it is stopping): its event is dropped, not retried for minutes
	// while the group's others wait.
	join("hollow-4") // the room nodes[0] left
	sinks[nodes[1]].close()
	record[nodes[1]]("WhileStopping")
	record["hollow-4"](ReasonStarting)
	waitEvents(t, clients["hollow-4"], "hollow-4", 1)
	// Nor one whose context ended before it left (its requests fail).
	clients["hollow-4"].PrependReactor("create", "events", func(ktesting.Action) (bool, runtime.Object, error) {
		return true, nil, context.Canceled
	})
	cancels["hollow-4"]()
	leave[nodes[1]]()
	join("hollow-5") // the room nodes[1] left, beside hollow-4
	record["hollow-4"]("AfterItsContext")
	record["hollow-5"](ReasonStarting)
	waitEvents(t, clients["hollow-5"], "hollow-5", 1)
	leave["hollow-5"]()
	leave["hollow-4"]()
	if len(e.groups) != 1 {
		t.Errorf("a group's last kubelet left: %d groups, want 1", len(e.groups))
	}
	leave[nodes[2]]()
	if len(e.groups) != 0 {
		t.Errorf("every kubelet left: %d groups, want 0", len(e.groups))
	}
}

func events(t *testing.T, c *fake.Clientset) []corev1.Event {
	t.Helper()
	l, err := c.CoreV1().Events("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// waitEvents waits until c holds n events, each with source host node.
func waitEvents(t *testing.T, c *fake.Clientset, node string, n int) {
	t.Helper()
	deadline := time.Now().Add(waitfor.Bound)
	for {
		got := events(t, c)
		for _, ev := range got {
			if ev.Source.Host != node || ev.Source.Component != "kubelet" {
				t.Fatalf("event %s in %s's client from %s/%s", ev.Reason, node, ev.Source.Component, ev.Source.Host)
			}
		}
		if len(got) == n {
			return
		}
		if len(got) > n || time.Now().After(deadline) {
			t.Fatalf("%s's client holds %d events, want %d", node, len(got), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
