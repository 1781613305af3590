package web

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestOnlyTheTeachersKeyDrives(t *testing.T) {
	srv, _, sess := startServer(t)
	// The gate holds a pod, as a component would.
	b := flow.Boundary{Point: flow.PointBeforeBinding, Component: "scheduler", Object: flow.ObjectRef{Namespace: "default", Name: "web"}}
	passed := make(chan error, 1)
	go func() { passed <- sess.gate.Wait(context.Background(), b) }()
	waitHeld(t, sess.gate)

	for _, tc := range []struct {
		name, key string
		want      int
	}{
		{"a read-only page", "", http.StatusForbidden},
		{"a wrong key", "guess", http.StatusForbidden},
	} {
		if code := post(t, srv, "/api/control", tc.key, `{"action":"next"}`); code != tc.want {
			t.Errorf("%s pressing next: %d, want %d", tc.name, code, tc.want)
		}
	}
	if len(sess.gate.Held()) != 1 {
		t.Fatalf("the gate holds %v after refused nexts, want the pod still held", sess.gate.Held())
	}
	resp, err := http.Get(srv.URL() + "api/events?key=guess")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("the event stream with a wrong key: %d, want 403", resp.StatusCode)
	}
	if code := post(t, srv, "/api/control", srv.Key(), `{"action":"next"}`); code != http.StatusNoContent {
		t.Fatalf("the teacher pressing next: %d, want 204", code)
	}
	waitPassed(t, passed, "the held pod")
}

func TestTeacherSettingsReachEveryPage(t *testing.T) {
	srv, _, sess := startServer(t)
	page := openStream(t, srv, "", "")
	if h := page.waitFor("hello", nil); h.Data["mode"] != "step" || h.Data["canRestart"] != true {
		t.Errorf("hello = %v, want step mode and a restartable lesson", h.Data)
	}
	for _, body := range []string{`{"action":"mode","mode":"auto"}`, `{"action":"speed","speed":4}`, `{"action":"lang","lang":"zh"}`} {
		if code := post(t, srv, "/api/control", srv.Key(), body); code != http.StatusNoContent {
			t.Fatalf("%s: %d, want 204", body, code)
		}
	}
	page.waitFor("control", func(d map[string]any) bool {
		return d["mode"] == "auto" && d["speed"] == float64(4) && d["lang"] == "zh"
	})
	if got := sess.gate.Mode(); got != flow.ModeAuto {
		t.Errorf("gate mode = %v, want auto", got)
	}
	if got, want := sess.gate.Delay(), flow.DefaultAutoDelay/4; got != want {
		t.Errorf("gate delay = %v, want %v (speed 4)", got, want)
	}
	for _, body := range []string{`{"action":"mode","mode":"fast"}`, `{"action":"speed","speed":99}`, `{"action":"lang","lang":"fr"}`, `{"action":"jump"}`, `not json`} {
		if code := post(t, srv, "/api/control", srv.Key(), body); code != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", body, code)
		}
	}
}

// waitHeld waits until g holds something.
func waitHeld(t *testing.T, g *flow.Gate) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatal("the gate held nothing:", err)
	}
}

// A next that says what the page shows held lets go exactly that: pressed
// again for a boundary already let go, it leaves alone the one held
// since, which no page has shown yet. A next without it lets go whatever
// is held.
func TestNextLetsGoWhatThePageShows(t *testing.T) {
	srv, _, sess := startServer(t)
	pod := flow.ObjectRef{Namespace: "default", Name: "web"}
	first := flow.Boundary{Point: flow.PointBeforeScheduling, Component: "scheduler", Object: pod}
	second := flow.Boundary{Point: flow.PointBeforeBinding, Component: "scheduler", Object: pod}
	passed := make(chan error, 2)
	go func() { passed <- sess.gate.Wait(context.Background(), first) }()
	waitHeld(t, sess.gate)
	shownFirst := `{"action":"next","held":[{"point":"before-scheduling","after":3,"component":"scheduler","object":"default/web","step":false}]}`
	if code := post(t, srv, "/api/control", srv.Key(), shownFirst); code != http.StatusNoContent {
		t.Fatalf("next for what the page shows: %d, want 204", code)
	}
	waitPassed(t, passed, "the boundary the page showed")
	go func() { passed <- sess.gate.Wait(context.Background(), second) }()
	waitHeld(t, sess.gate)
	if code := post(t, srv, "/api/control", srv.Key(), shownFirst); code != http.StatusNoContent {
		t.Fatalf("next pressed again: %d, want 204", code)
	}
	if held := sess.gate.Held(); len(held) != 1 || held[0] != second {
		t.Fatalf("after a second next for a boundary let go, the gate holds %v, want %v still", held, second)
	}
	if code := post(t, srv, "/api/control", srv.Key(), `{"action":"next"}`); code != http.StatusNoContent {
		t.Fatalf("next: %d, want 204", code)
	}
	waitPassed(t, passed, "the boundary held since, on a plain next")
}

// waitPassed waits until a Wait on the gate returns on passed, failing
// if it does not within two minutes or returns an error.
func waitPassed(t *testing.T, passed <-chan error, what string) {
	t.Helper()
	select {
	case err := <-passed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("next did not let %s go", what)
	}
}
