package recording

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// Writer records a run: Observe wraps the run's outputs, so that every
// call the runner makes to them is written, as it is made, before it is
// handed on; End writes the last line. Each line is flushed when written,
// so a run that is killed leaves every line before it. Safe for
// concurrent use.
type Writer struct {
	mu    sync.Mutex
	w     *bufio.Writer
	start time.Time
	now   func() time.Time
	err   error // the first write error; later writes are skipped
	ended bool
}

// NewWriter writes h (Kubesim, Version and Started filled in) to w and
// returns the Writer of the entries that follow. now is the clock
// (time.Now when nil).
func NewWriter(w io.Writer, h Header, now func() time.Time) (*Writer, error) {
	if now == nil {
		now = time.Now
	}
	rw := &Writer{w: bufio.NewWriter(w), now: now}
	rw.start = now()
	h.Kubesim, h.Version, h.Started = Magic, Version, rw.start.UTC()
	rw.line(h)
	return rw, rw.err
}

// line writes v as one line. The caller holds mu (or owns rw).
func (rw *Writer) line(v any) {
	if rw.err != nil {
		return
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	// As the JSON printer: evidence kept as it was, byte for byte.
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		rw.err = err
		return
	}
	if _, err := rw.w.Write(b.Bytes()); err != nil {
		rw.err = err
		return
	}
	rw.err = rw.w.Flush()
}

// write stamps e with the time since the start, writes it and then, with
// the lock still held, calls deliver: the outputs get the calls in the
// order they are written.
func (rw *Writer) write(e Entry, deliver func()) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if !rw.ended {
		e.At = rw.now().Sub(rw.start)
		rw.line(e)
	}
	if deliver != nil {
		deliver()
	}
}

// End writes the end entry with the run's error (nil when every
// expectation held) and returns the first error writing met. Calls
// after End are handed on but not written.
func (rw *Writer) End(runErr error) error {
	e := Entry{Kind: KindEnd}
	if runErr != nil {
		e.Error = runErr.Error()
	}
	rw.write(e, nil)
	rw.mu.Lock()
	defer rw.mu.Unlock()
	rw.ended = true
	return rw.err
}

// Observe returns an observer that writes every call and hands it on to
// inner (which may be nil; flow events go on only when inner is a
// scenarios.EventObserver).
func (rw *Writer) Observe(inner scenarios.Observer) *Tee {
	return &Tee{rw: rw, inner: inner}
}

// Tee is the observer Observe returns.
type Tee struct {
	rw    *Writer
	inner scenarios.Observer
}

var (
	_ scenarios.Observer      = (*Tee)(nil)
	_ scenarios.EventObserver = (*Tee)(nil)
)

// StepStarted writes a step entry and hands s on.
func (t *Tee) StepStarted(s scenarios.StepInfo) {
	t.rw.write(Entry{Kind: KindStep, Step: stepOf(s)}, func() {
		if t.inner != nil {
			t.inner.StepStarted(s)
		}
	})
}

// StepFinished writes a result entry and hands s and r on.
func (t *Tee) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	res, err := resultOf(r)
	if err != nil {
		t.rw.fail(err)
	}
	t.rw.write(Entry{Kind: KindResult, Step: stepOf(s), Result: res}, func() {
		if t.inner != nil {
			t.inner.StepFinished(s, r)
		}
	})
}

// Event writes an event entry and hands ev on.
func (t *Tee) Event(ev flow.Event) {
	rec := ev
	rec.Time = time.Time{}
	var at *time.Duration
	if !ev.Time.IsZero() {
		// By the wall clock (Round(0) drops the monotonic reading), as
		// Started is written: the time read back is the one the event had.
		d := ev.Time.Round(0).Sub(t.rw.start.Round(0))
		at = &d
	}
	t.rw.write(Entry{Kind: KindEvent, Event: &rec, EventAt: at}, func() {
		if eo, ok := t.inner.(scenarios.EventObserver); ok {
			eo.Event(ev)
		}
	})
}

// fail keeps err as the writer's error, if it has none.
func (rw *Writer) fail(err error) {
	rw.mu.Lock()
	defer rw.mu.Unlock()
	if rw.err == nil {
		rw.err = errors.Join(errors.New("recording a step's evidence"), err)
	}
}
