package scenarios

import (
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// SlowWatcherExpectation: in the step's slowWatch, the API server's watch
// cache dropped the watcher (Dropped) or not; the client missed Missed
// changes across its two watches; BufferSize, if not 0, is the size of
// each of the watcher's two buffers on the server, both full at the drop. Always checked besides: no change came
// twice, the re-watch started from the last resourceVersion read and,
// for a dropped watcher, the server recorded the drop, the events it had
// made still reached the client and then it ended the stream
// (END_STREAM).
type SlowWatcherExpectation struct {
	Dropped    bool
	Missed     int
	BufferSize int
}

var _ resultChecker = (*SlowWatcherExpectation)(nil)

// slowWatcherDoc is slowWatcher as written.
type slowWatcherDoc struct {
	Dropped    *boolean `yaml:"dropped"`
	Missed     *integer `yaml:"missed"`
	BufferSize *integer `yaml:"bufferSize"`
}

func (e *SlowWatcherExpectation) Kind() string { return "slowWatcher" }
func (e *SlowWatcherExpectation) String() string {
	return fmt.Sprintf("slowWatcher dropped %t, %d missed, re-watch from the last resourceVersion read", e.Dropped, e.Missed)
}

// parseSlowWatcher reads {dropped, missed, bufferSize}: dropped true
// and missed 0 unless given; bufferSize 1 or more, only with dropped.
func parseSlowWatcher(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[slowWatcherDoc](n)
	if err != nil {
		return nil, err
	}
	e := &SlowWatcherExpectation{Dropped: d.Dropped.or(true)}
	if m := d.Missed; m != nil {
		if *m < 0 {
			return nil, errAt(valueOf(n, "missed"), "%d: a count of changes is 0 or more", *m)
		}
		e.Missed = int(*m)
	}
	if b := d.BufferSize; b != nil {
		if *b < 1 || !e.Dropped {
			return nil, errAt(valueOf(n, "bufferSize"), "%d: the size of a dropped watcher's buffers is 1 or more", *b)
		}
		e.BufferSize = int(*b)
	}
	return e, nil
}

// checkResult reads the step's SlowWatchEvidence.
func (e *SlowWatcherExpectation) checkResult(res *StepResult) (string, bool) {
	ev, _ := res.Evidence.(*SlowWatchEvidence)
	if ev == nil {
		return "no slowWatch in this step", false
	}
	got := fmt.Sprintf("dropped %t, %d missed, %d twice, re-watch from %q after the last read %q",
		ev.Dropped, len(ev.Missed), len(ev.Twice), ev.RewatchFrom, ev.LastRead)
	ok := ev.Dropped == e.Dropped && len(ev.Missed) == e.Missed && len(ev.Twice) == 0 &&
		ev.RewatchFrom == ev.LastRead && len(ev.Written) > 0
	if ev.Dropped {
		got += ", stream 1 ended by " + orNone(ev.First.EndedBy)
		ok = ok && ev.Server != nil && ev.First.EndedBy == "END_STREAM"
		if t := ev.Server; t != nil {
			got += fmt.Sprintf(", %d read before the drop and %d after, %d events made", ev.ReadWhileStalled,
				len(ev.First.Read)-ev.ReadWhileStalled, t.ResultQueued)
			ok = ok && len(ev.First.Read) >= ev.ReadWhileStalled+t.ResultQueued
		}
		if t := ev.Server; t != nil && e.BufferSize > 0 {
			got += fmt.Sprintf(", buffers %d of %d and %d of %d", t.Queued, t.BufferSize, t.ResultQueued, t.ResultSize)
			ok = ok && t.BufferSize == e.BufferSize && t.ResultSize == e.BufferSize &&
				t.Queued == t.BufferSize && t.ResultQueued == t.ResultSize
		}
	}
	return got, ok
}

// orNone is s, or "none" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
