package scheduler_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/scheduler"
)

// TestEndToEndManyBindsFailAtOnce: when every binding in flight fails at
// once (404, as for pods deleted between their scheduling and their
// binding), the scheduler goes on: a pod created afterwards is bound, and
// the scheduler stops when asked. Each failed binding makes its failure
// report (event, PodScheduled=False) itself; if it asked for one of the
// places of the API calls that it and the other failed bindings hold,
// none would ever get one (issue 26: the scheduler wedged for good after
// 17 binding 404s in a row).
func TestEndToEndManyBindsFailAtOnce(t *testing.T) {
	t.Parallel()
	const doomed = scheduler.DefaultParallelAPICalls // every place at once
	fail := &failingBindings{prefix: "doomed-", holdUntil: doomed, release: make(chan struct{})}
	e := startE2EOn(t, func(c *cluster.Cluster, cfg *scheduler.Config) {
		cfg.Client = mustClientWrapped(t, c, pki.Scheduler(), fail.wrap)
	}, node("node-1", "64", "64Gi"))

	for i := range doomed {
		e.createPod(t, pod(fmt.Sprintf("doomed-%d", i), "100m", "64Mi"))
	}
	e.waitFor(t, fmt.Sprintf("%d bindings to fail together", doomed), func(context.Context) (bool, error) {
		return fail.answered() >= doomed, nil
	})
	e.createPod(t, pod("after", "100m", "64Mi"))
	if n := e.waitBound(t, "after"); n != "node-1" {
		t.Errorf("pod after bound to %q, want node-1", n)
	}
	// A failed binding is reported as kube-scheduler reports it.
	ev := e.waitEvent(t, "doomed-0", "FailedScheduling")
	if want := `binding pod to node node-1: pods "doomed-0" not found`; !strings.Contains(ev.Message, want) {
		t.Errorf("FailedScheduling message %q, want it to contain %q", ev.Message, want)
	}
	e.stop() // fails the test if Run does not return
}

// failingBindings answers the bindings of the pods whose names start
// with prefix with the API server's 404 for a pod that is gone. The
// first holdUntil of them wait until that many have arrived, so that
// they fail together, each holding one of the scheduler's places for API
// calls.
type failingBindings struct {
	prefix    string
	holdUntil int

	mu      sync.Mutex
	arrived int
	release chan struct{} // closed when holdUntil have arrived
	done    int           // 404s sent
}

func (f *failingBindings) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		name, ok := f.doomedBinding(r)
		if !ok {
			return rt.RoundTrip(r)
		}
		f.mu.Lock()
		if f.arrived++; f.arrived == f.holdUntil {
			close(f.release)
		}
		f.mu.Unlock()
		select {
		case <-f.release:
		case <-r.Context().Done():
			return nil, r.Context().Err()
		}
		f.mu.Lock()
		f.done++
		f.mu.Unlock()
		return notFound(r, name)
	})
}

// doomedBinding reports whether r is a binding of a doomed pod, and the
// pod's name.
func (f *failingBindings) doomedBinding(r *http.Request) (string, bool) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	// api v1 namespaces <ns> pods <name> binding
	if r.Method != http.MethodPost || len(parts) != 7 || parts[4] != "pods" || parts[6] != "binding" {
		return "", false
	}
	return parts[5], strings.HasPrefix(parts[5], f.prefix)
}

func (f *failingBindings) answered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done
}

// notFound is the API server's answer to a binding of a pod that does
// not exist: 404 with a NotFound Status.
func notFound(r *http.Request, name string) (*http.Response, error) {
	st := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, name).Status()
	st.Kind, st.APIVersion = "Status", "v1"
	body, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		Status: "404 Not Found", StatusCode: http.StatusNotFound, Proto: "HTTP/2.0", ProtoMajor: 2,
		Header: http.Header{"Content-Type": []string{"application/json"}},
		Body:   io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: r,
	}, nil
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
