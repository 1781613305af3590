package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/muesli/termenv"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestNoColor(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	if got := newRenderer(io.Discard, false).ColorProfile(); got != termenv.Ascii {
		t.Errorf("with NO_COLOR the profile is %v, want Ascii", got)
	}
}

// TestRun runs the real program on a pipe: it quits on q, closes the
// session it started and writes the markdown walkthrough.
func TestRun(t *testing.T) {
	d := &fakeDriver{play: playStages}
	in, inW := io.Pipe()
	var out lockedBuffer
	md := filepath.Join(t.TempDir(), "walk.md")
	cast := filepath.Join(t.TempDir(), "walk.cast")
	errc := make(chan error, 1)
	go func() {
		errc <- Run(context.Background(), d, Options{Scenario: "pod-create", Mode: flow.ModeAuto, Speed: 0, NoColor: true,
			Markdown: md, Record: cast, Input: in, Output: &out, Now: fixedNow})
	}()
	deadline := time.Now().Add(waitTimeout)
	for !strings.Contains(out.String(), "Scenario finished") {
		if time.Now().After(deadline) {
			t.Fatalf("no summary within %v at speed 0; output:\n%s", waitTimeout, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if _, err := inW.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("Run = %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("Run did not return after q")
	}
	_ = inW.Close()
	if !d.session().isClosed() {
		t.Error("Run left the session open")
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "#### 8/8 Status stored in etcd") {
		t.Errorf("markdown lacks stage 8:\n%s", b)
	}
	checkCast(t, cast, "Scenario finished")
}

// checkCast checks that path is an asciicast v2 recording whose output
// contains want.
func checkCast(t *testing.T, path, want string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(b)), "\n")
	var hdr struct{ Version, Width, Height int }
	if err := json.Unmarshal([]byte(rows[0]), &hdr); err != nil || hdr.Version != 2 || hdr.Width != 80 || hdr.Height != 24 {
		t.Fatalf("cast header %s (%v), want version 2, 80×24", rows[0], err)
	}
	var all strings.Builder
	for _, r := range rows[1:] {
		var ev []any
		if err := json.Unmarshal([]byte(r), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("cast event %s: %v", r, err)
		}
		if ev[1] == "o" {
			all.WriteString(ev[2].(string))
		}
	}
	if !strings.Contains(all.String(), want) {
		t.Errorf("the recording's output lacks %q", want)
	}
}

// lockedBuffer is a bytes.Buffer the program writes to while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
