package apiserver_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestTraceQuietWithoutReaders: a request served while nobody reads the
// recorder leaves no trace event; once someone subscribes, the next
// request's trace comes with its steps, the goroutine among them.
func TestTraceQuietWithoutReaders(t *testing.T) {
	rec := flow.NewRecorder()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?unread=1", "", ""); code != http.StatusOK {
		t.Fatalf("GET: %d %s", code, body)
	}
	sub := rec.Subscribe(100)
	defer sub.Close()
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps?read=1", "", ""); code != http.StatusOK {
		t.Fatalf("GET: %d %s", code, body)
	}
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Request == nil {
				continue
			}
			switch ev.Request.URI {
			case "/api/v1/namespaces/default/configmaps?unread=1":
				t.Fatalf("trace of the request made while nobody read the recorder")
			case "/api/v1/namespaces/default/configmaps?read=1":
			default:
				continue // the server's own requests
			}
			if names := stepNames(ev.Request.Steps); !containsStep(ev.Request.Steps, "goroutine") || !containsStep(ev.Request.Steps, "authenticated") {
				t.Errorf("steps %s, want received, goroutine, authenticated...", names)
			}
			return
		case <-deadline:
			t.Fatal("no trace event for the request made once someone reads")
		}
	}
}

func containsStep(steps []flow.Step, name string) bool {
	for _, s := range steps {
		if s.Name == name {
			return true
		}
	}
	return false
}
