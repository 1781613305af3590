package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// The clients of a watchCompare, as the scoreboard and the scoreboard
// expectation name them.
const (
	ClientPoll     = "poll"
	ClientLongPoll = "longpoll"
	ClientWatch    = "watch"
)

// compareClients are the clients' names in the scoreboard's order.
var compareClients = []string{ClientPoll, ClientLongPoll, ClientWatch}

// change is one write of a comparison: the resourceVersion it gave the
// object and when its answer came (index 0: the state before the
// first write, read when the comparison starts).
type change struct {
	rv string
	at time.Time
}

// comparison is one run of a watchCompare action: the writer, the three
// clients and what they recorded. The writer's fields are written by the
// writer goroutine only; final and changes are read by others after done
// is closed.
type comparison struct {
	a       *WatchCompareAction
	p       *player
	hc      *httpClient
	objects dynamic.ResourceInterface
	paths   comparePaths

	clients []*compareClient
	ready   chan struct{} // one send per client, once it has a first state
	changes []change
	// start is when the writer began (every client had a first state).
	start time.Time
	final string        // the last change's resourceVersion
	done  chan struct{} // closed when the writer is done
}

func newComparison(a *WatchCompareAction, p *player, hc *httpClient, objects dynamic.ResourceInterface, paths comparePaths) *comparison {
	c := &comparison{a: a, p: p, hc: hc, objects: objects, paths: paths, ready: make(chan struct{}, len(compareClients)), done: make(chan struct{})}
	for _, name := range compareClients {
		c.clients = append(c.clients, newCompareClient(name, c))
	}
	return c
}

// run reads the object's current resourceVersion, then runs the
// clients and the writer until every client has the last change, or one
// fails (which stops the others; its error is returned).
func (c *comparison) run(ctx context.Context) error {
	cur, err := c.objects.Get(ctx, c.a.Object.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("watchCompare: read %s: %w", c.a.Object, err)
	}
	c.changes = []change{{rv: cur.GetResourceVersion(), at: time.Now()}}

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var first error
	fail := func(err error) {
		once.Do(func() { first = err; cancel() })
	}
	var wg sync.WaitGroup
	for _, cl := range c.clients {
		wg.Go(func() {
			if err := cl.follow(cctx); err != nil {
				fail(fmt.Errorf("watchCompare: the %s client: %w", cl.name, ctxErr(ctx, err)))
			}
		})
	}
	wg.Go(func() {
		if err := c.write(cctx); err != nil {
			fail(fmt.Errorf("watchCompare: the writer: %w", ctxErr(ctx, err)))
		}
	})
	wg.Wait()
	for _, cl := range c.clients {
		cl.transport.CloseIdleConnections()
	}
	return first
}

// write waits until every client has a first state, then makes the
// changes, each after Spacing (real time, whatever the speed): a merge patch that sets the
// object's CompareLabel to the change's number. It records each change's resourceVersion and the time its
// answer came, and closes done after the last.
func (c *comparison) write(ctx context.Context) error {
	for range c.clients {
		select {
		case <-c.ready:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	c.start = time.Now()
	for i := 1; i <= c.a.Changes; i++ {
		if err := sleep(ctx, c.a.Spacing); err != nil {
			return err
		}
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, CompareLabel, strconv.Itoa(i))
		obj, err := c.objects.Patch(ctx, c.a.Object.Name, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return fmt.Errorf("change %d: %w", i, err)
		}
		c.changes = append(c.changes, change{rv: obj.GetResourceVersion(), at: time.Now()})
	}
	c.final = c.changes[len(c.changes)-1].rv
	close(c.done)
	return nil
}

// hasLast reports whether rv is the writer's last change (false while
// the writer is still writing).
func (c *comparison) hasLast(rv string) bool {
	select {
	case <-c.done:
		return rv == c.final
	default:
		return false
	}
}

// pollInterval is the poller's pause: PollInterval, at least
// minPollInterval. Like Spacing it is not scaled by the speed: what the
// comparison shows (late or wasteful polls) holds only in real time.
func (c *comparison) pollInterval() time.Duration {
	return max(c.a.PollInterval, minPollInterval)
}
