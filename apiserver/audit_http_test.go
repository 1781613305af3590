package apiserver_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/apiserver"
)

// lineLog is an audit log in memory that records each Write.
type lineLog struct {
	mu     sync.Mutex
	writes [][]byte
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, bytes.Clone(p))
	return len(p), nil
}

// stages returns the stages of the events about a pod, in order.
func (l *lineLog) stages(tb testing.TB, verb, name string) []string {
	tb.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, w := range l.writes {
		var ev struct {
			Stage, Verb string
			ObjectRef   struct{ Resource, Name string }
		}
		if err := json.Unmarshal(w, &ev); err != nil || bytes.IndexByte(w, '\n') != len(w)-1 {
			tb.Fatalf("audit write %q is not one JSON line (%v)", w, err)
		}
		if ev.Verb == verb && ev.ObjectRef.Resource == "pods" && ev.ObjectRef.Name == name {
			out = append(out, ev.Stage)
		}
	}
	return out
}

// The audit events of a request, ResponseComplete included, are written
// before the client has its response: when a create returns, its events
// are already in the log (blocking mode).
func TestAuditEventsWrittenBeforeResponse(t *testing.T) {
	audit := &lineLog{}
	ts := startServer(t, func(cfg *apiserver.Config) { cfg.AuditLog = audit })
	for i := range 20 {
		name := fmt.Sprintf("audited-%d", i)
		mustCreatePod(t, ts.client, "default", testPod(name, nil))
		// RequestReceived comes before the name is known (it is in the
		// body): it has none.
		got := fmt.Sprint(audit.stages(t, "create", name))
		if want := "[ResponseComplete]"; got != want {
			t.Fatalf("when the create of %s returned, its audit stages were %s, want %s", name, got, want)
		}
	}
}
