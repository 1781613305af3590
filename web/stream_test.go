package web

import (
	"net/http"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// lessonRequest is a request a scenario step made, answered.
func lessonRequest(uri string) flow.Event {
	return flow.Event{Component: "apiserver", Time: time.Now(), Request: &flow.RequestTrace{
		AuditID: uri, Method: "GET", URI: uri, User: "admin", UserAgent: actionUserAgent, Code: 200}}
}

// watchEvent is a watch event the API server sent the scheduler: one
// arrow.
func watchEvent(rv string) flow.Event {
	return flow.Event{Component: "apiserver", Stage: flow.StageSchedulerNotified, Time: time.Now(),
		Watch: &flow.WatchDelivery{User: "system:kube-scheduler", Type: "ADDED", ResourceVersion: rv}}
}

func TestStreamReplaysTheLogThenFollows(t *testing.T) {
	srv, _, sess := startServer(t)
	sess.rec.Record(lessonRequest("/api/v1/pods/a"))
	first := openStream(t, srv, "", "")
	hello := first.waitFor("hello", nil)
	if hello.Data["role"] != roleViewer || hello.ID != "" {
		t.Errorf("hello = %v (id %q), want a viewer's, with no id", hello.Data, hello.ID)
	}
	if m := first.waitFor("session", nil); m.ID != "1.1" {
		t.Errorf("session message id = %q, want 1.1", m.ID)
	}
	if m := first.waitFor("arrow", nil); m.Data["label"] != "GET /api/v1/pods/a" || m.Data["from"] != lineClient {
		t.Errorf("first arrow = %v, want the lesson's GET from the client", m.Data)
	}
	// Live: a message published after the page connected comes too.
	sess.rec.Record(watchEvent("7"))
	m := first.waitFor("arrow", func(d map[string]any) bool { return d["label"] == "ADDED rv=7" })
	// A page that reconnects with the last id it had resumes after it.
	again := openStream(t, srv, "", m.ID)
	again.waitFor("hello", nil)
	next := make(chan streamMsg, 1)
	go func() { next <- <-again.msgs }()
	sess.rec.Record(watchEvent("8"))
	select {
	case got := <-next:
		if got.Data["label"] != "ADDED rv=8" {
			t.Errorf("after Last-Event-ID %s the first message is %v, want the arrow of rv 8", m.ID, got.Data)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("no message after reconnecting")
	}
}

func TestRestartStartsANewEpoch(t *testing.T) {
	srv, d, sess := startServer(t)
	sess.rec.Record(lessonRequest("/api/v1/pods/a"))
	page := openStream(t, srv, "", "")
	old := page.waitFor("arrow", nil)
	if code := post(t, srv, "/api/control", srv.Key(), `{"action":"restart"}`); code != http.StatusAccepted {
		t.Fatalf("restart: %d, want 202", code)
	}
	second := <-d.started
	if m := page.waitFor("session", nil); m.Data["epoch"] != float64(2) || m.ID != "2.1" {
		t.Errorf("after restart: %v (id %s), want the session of epoch 2", m.Data, m.ID)
	}
	second.rec.Record(lessonRequest("/api/v1/pods/new"))
	if m := page.waitFor("arrow", nil); m.Data["id"] != float64(1) || m.ID == old.ID {
		t.Errorf("first arrow of epoch 2 = %v (id %s), want arrow 1 with a new event id", m.Data, m.ID)
	}
	// An id of the old epoch starts a page at the new one's beginning.
	late := openStream(t, srv, "", old.ID)
	late.waitFor("hello", nil)
	if m := <-late.msgs; m.Data["t"] != "session" || m.ID != "2.1" {
		t.Errorf("reconnecting with %s: first message %v (id %s), want epoch 2's session", old.ID, m.Data, m.ID)
	}
}

func TestParseLastEventID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want cursor
	}{
		{"3.14", cursor{3, 14}}, {"", cursor{epoch: -1}}, {"x.1", cursor{epoch: -1}}, {"1.-2", cursor{epoch: -1}},
	} {
		if got := parseLastEventID(tc.in); got != tc.want {
			t.Errorf("parseLastEventID(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
