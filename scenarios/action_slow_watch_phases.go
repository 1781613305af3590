package scenarios

import (
	"context"
	"slices"
	"strconv"
	"time"

	"golang.org/x/net/http2"

	"github.com/kubesim/kubesim/internal/flow"
)

// stall keeps stream 1 unread (no WINDOW_UPDATE) until the writer is done
// and the API server has dropped the watcher (or slowDropWait passed
// without a drop). Frames still arrive: the connection's, and the first
// Window bytes of the stream.
func (r *slowRun) stall(ctx context.Context) error {
	r.logf("-- the client stops reading stream 1: no WINDOW_UPDATE, so the server may send %d bytes of it and no more", r.a.Window)
	writing := r.writerDone
	var deadline <-chan time.Time
	for {
		t, changed := r.dropOf(1)
		r.ev.Server = t
		if writing == nil && t != nil {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-writing:
			writing, deadline = nil, time.After(slowDropWait)
			continue
		case <-changed:
			continue
		case <-deadline:
		case f, ok := <-r.sc.frames:
			if err := r.frame(f, ok, true); err != nil {
				return err
			}
			continue
		}
		break
	}
	r.ev.ReadWhileStalled, r.ev.BytesWhileStalled = len(r.streams[1].Read), r.firstBytes
	r.logStall()
	return nil
}

// logStall writes what the writer did and what the server did meanwhile.
func (r *slowRun) logStall() {
	if n := len(r.written); n > 0 {
		r.logf("-- meanwhile the writer patched the Lease %d times: resourceVersions %s to %s (its requests are not listed)", n, r.written[0], r.written[n-1])
	}
	r.logf("-- meanwhile stream 1 brought %d bytes (whole events: %d): the window was spent, the server's writes blocked",
		r.ev.BytesWhileStalled, r.ev.ReadWhileStalled)
	t := r.ev.Server
	if t == nil {
		r.logf("!! the API server did not drop the watcher")
		return
	}
	r.ev.Dropped = true
	r.logf("!! the API server's watch cache dropped the watcher: its buffer held %d of %d changes (discarded); %d of %d events made were not yet written (still sent)",
		t.Queued, t.BufferSize, t.ResultQueued, t.ResultSize)
	r.logf("   the last change it queued: resourceVersion %d; no room for %d, after waiting %s (its dispatch budget)",
		t.LastQueued, t.GaveUpAt, flow.FormatDuration(t.Waited))
}

// drain reads stream 1 again: it gives the window back and reads until
// the server ends the stream (or, if the watcher was not dropped, until
// it has every change).
func (r *slowRun) drain(ctx context.Context) error {
	r.logf("-- the client reads again: it gives back %d bytes of window, on stream 1 and on the connection", slowGiveBack)
	if err := r.sc.fr.WriteWindowUpdate(1, slowGiveBack); err != nil {
		return err
	}
	if err := r.sc.fr.WriteWindowUpdate(0, slowGiveBack); err != nil {
		return err
	}
	first := r.streams[1]
	for first.EndedBy == "" && (r.ev.Dropped || !r.hasAll(first.Read)) {
		if err := r.next(ctx, nil, false); err != nil {
			return err
		}
	}
	if first.EndedBy != "" {
		r.logf("-- the server ended stream 1 (%s) after %d events: no ERROR event, the watch just ends", first.EndedBy, len(first.Read))
	}
	return nil
}

// rewatch watches again on stream 3 from the last resourceVersion stream
// 1 delivered, until every change has come (or slowRewatchWait passed).
func (r *slowRun) rewatch(ctx context.Context) error {
	first := r.streams[1]
	r.ev.LastRead = r.start
	if n := len(first.Read); n > 0 {
		r.ev.LastRead = first.Read[n-1]
	}
	r.ev.RewatchFrom = r.ev.LastRead
	r.logf("-- the last resourceVersion the client read: %s; it watches again from there on stream 3, as client-go's reflector does", r.ev.LastRead)
	if err := r.open(ctx, 3, r.a.watchPath(r.ev.RewatchFrom), true); err != nil {
		return err
	}
	timeout := make(chan struct{})
	timer := time.AfterFunc(slowRewatchWait, func() { close(timeout) })
	defer timer.Stop()
	for !r.seenAll() {
		select {
		case <-timeout:
			r.logf("!! the re-watch did not bring every change within %s", slowRewatchWait)
		default:
			if err := r.next(ctx, timeout, false); err != nil {
				return err
			}
			continue
		}
		break
	}
	r.logf("(%d events read on stream 3: the client resets it and closes the connection)", len(r.streams[3].Read))
	return nil
}

// hasAll reports whether read holds every written resourceVersion.
func (r *slowRun) hasAll(read []string) bool {
	for _, rv := range r.written {
		if !slices.Contains(read, rv) {
			return false
		}
	}
	return len(r.written) == r.a.Changes
}

// seenAll reports whether some watch delivered every change.
func (r *slowRun) seenAll() bool {
	for _, rv := range r.written {
		if r.seen[rv] == 0 {
			return false
		}
	}
	return true
}

// compare finds the changes missed or delivered twice.
func (r *slowRun) compare() {
	r.ev.Written = r.written
	r.ev.First, r.ev.Rewatch = *r.streams[1], SlowWatchStream{}
	if st := r.streams[3]; st != nil {
		r.ev.Rewatch = *st
	}
	r.ev.Missed, r.ev.Twice = []string{}, []string{}
	for _, rv := range r.written {
		switch n := r.seen[rv]; {
		case n == 0:
			r.ev.Missed = append(r.ev.Missed, rv)
		case n > 1:
			r.ev.Twice = append(r.ev.Twice, rv)
		}
	}
	r.logf("-- %d changes written; stream 1 delivered %d of them, stream 3 %d: %d missed, %d delivered twice",
		len(r.written), len(r.ev.First.Read), len(r.ev.Rewatch.Read), len(r.ev.Missed), len(r.ev.Twice))
}

// close resets stream 3 (if the server has not ended it) and closes the
// connection.
func (r *slowRun) close() {
	r.sc.conn.SetDeadline(time.Now().Add(5 * time.Second))
	if st := r.streams[3]; st != nil && st.EndedBy == "" {
		r.sc.fr.WriteRSTStream(3, http2.ErrCodeCancel)
	}
	r.sc.conn.Close()
	r.logf("* connection closed")
	r.res.Status = r.streams[1].Status
}

// summary is the step's one-line result.
func (r *slowRun) summary() string {
	dropped := "not dropped"
	if r.ev.Dropped {
		dropped = "dropped by the watch cache at resourceVersion " + strconv.FormatInt(r.ev.Server.GaveUpAt, 10)
	}
	return "slow watcher " + dropped + "; re-watch from " + r.ev.RewatchFrom + "; " +
		strconv.Itoa(len(r.ev.Missed)) + " changes missed"
}
