package scenarios

import (
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestParseSlowWatcher(t *testing.T) {
	checkParse(t, parseSlowWatcher, []parseCase[Expectation]{
		{name: "defaults", key: "slowWatcher", src: "{}", want: &SlowWatcherExpectation{Dropped: true}},
		{name: "every field", key: "slowWatcher", src: "{dropped: true, missed: 0, bufferSize: 10}",
			want: &SlowWatcherExpectation{Dropped: true, BufferSize: 10}},
		{name: "not dropped", key: "slowWatcher", src: "{dropped: false, missed: 2}", want: &SlowWatcherExpectation{Missed: 2}},
		{name: "a negative count", key: "slowWatcher", src: "{missed: -1}", wantErr: "1:10: slowWatcher.missed: -1: a count of changes is 0 or more"},
		{name: "a buffer without a drop", key: "slowWatcher", src: "{dropped: false, bufferSize: 10}",
			wantErr: "1:30: slowWatcher.bufferSize: 10: the size of a dropped watcher's buffers is 1 or more"},
	})
}

// TestSlowWatcherChecks: each fact the lesson states fails the check when
// the evidence says otherwise.
func TestSlowWatcherChecks(t *testing.T) {
	good := func() *SlowWatchEvidence {
		return &SlowWatchEvidence{
			Written: []string{"10", "11", "12", "13"}, Dropped: true, ReadWhileStalled: 1,
			Server: &flow.WatchTermination{BufferSize: 2, Queued: 2, ResultSize: 2, ResultQueued: 2, LastQueued: 12, GaveUpAt: 13},
			First:  SlowWatchStream{Read: []string{"10", "11", "12"}, EndedBy: "END_STREAM"}, Rewatch: SlowWatchStream{Read: []string{"13"}},
			LastRead: "12", RewatchFrom: "12", Missed: []string{}, Twice: []string{},
		}
	}
	e := &SlowWatcherExpectation{Dropped: true, BufferSize: 2}
	for _, tc := range []struct {
		name   string
		change func(*SlowWatchEvidence)
		want   bool
	}{
		{"as the lesson says", func(*SlowWatchEvidence) {}, true},
		{"not dropped", func(ev *SlowWatchEvidence) { ev.Dropped, ev.Server = false, nil }, false},
		{"a change missed", func(ev *SlowWatchEvidence) { ev.Missed = []string{"13"} }, false},
		{"a change twice", func(ev *SlowWatchEvidence) { ev.Twice = []string{"12"} }, false},
		{"re-watch from elsewhere", func(ev *SlowWatchEvidence) { ev.RewatchFrom = "10" }, false},
		{"the stream reset, not ended", func(ev *SlowWatchEvidence) { ev.First.EndedBy = "RST_STREAM" }, false},
		{"another buffer size", func(ev *SlowWatchEvidence) { ev.Server.BufferSize, ev.Server.Queued = 3, 3 }, false},
		{"a buffer not full", func(ev *SlowWatchEvidence) { ev.Server.Queued = 1 }, false},
		{"events made not delivered", func(ev *SlowWatchEvidence) { ev.First.Read = ev.First.Read[:2] }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ev := good()
			tc.change(ev)
			got, ok := e.checkResult(&StepResult{Evidence: ev})
			if ok != tc.want {
				t.Errorf("checkResult = %v (%s), want %v", ok, got, tc.want)
			}
		})
	}
}
