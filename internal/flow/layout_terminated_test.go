package flow

import (
	"strings"
	"testing"
	"time"
)

// TestLayoutTerminated: a dropped watcher's figures are on its lines, in
// both languages.
func TestLayoutTerminated(t *testing.T) {
	ev := Event{Terminated: &WatchTermination{User: "admin", URI: "/api/v1/configmaps?watch=1", Proto: "HTTP/2.0",
		BufferSize: 10, Queued: 10, ResultSize: 10, ResultQueued: 9, LastQueued: 120, GaveUpAt: 121, Waited: 100 * time.Millisecond}}
	for _, lang := range []string{"en", "zh"} {
		var b strings.Builder
		for _, l := range (Layout{Lang: lang}).Event(ev, Context{}) {
			b.WriteString(l.String() + "\n")
		}
		got := b.String()
		for _, want := range []string{"admin", "GET /api/v1/configmaps?watch=1", "10/10", "120", "121", "100ms"} {
			if lang == "en" && want == "10/10" {
				want = "10 of 10"
			}
			if !strings.Contains(got, want) {
				t.Errorf("%s: %q not in\n%s", lang, want, got)
			}
		}
	}
}
