package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"golang.org/x/net/http2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/h2wire"
)

// Waits of a slowWatch run: for the drop once the writer is done, and for
// the re-watch to bring every change. Each ends a wait for a condition.
const (
	slowDropWait    = 10 * time.Second
	slowRewatchWait = 10 * time.Second
	// slowGiveBack is the window the client gives back when it reads
	// again: more than the rest of the run needs.
	slowGiveBack = 1 << 20
)

// slowRun is one run of a slowWatch action. Everything but the writer
// runs on the action's goroutine.
type slowRun struct {
	a    *SlowWatchAction
	p    *player
	user string
	hc   *httpClient
	sc   *slowConn
	res  StepResult
	ev   *SlowWatchEvidence

	streams map[uint32]*SlowWatchStream
	bufs    map[uint32][]byte
	audit   map[uint32]string
	seen    map[string]int // resourceVersion → times delivered
	// start is the resourceVersion the first watch starts from,
	// firstBytes the bytes of watch events stream 1 brought.
	start      string
	firstBytes int

	writerDone chan struct{}
	written    []string // read after writerDone
	writerErr  error
}

func (r *slowRun) logf(format string, args ...any) { addTranscript(&r.res, format, args...) }

func (r *slowRun) logLines(lines []string) {
	for _, l := range lines {
		r.logf("%s", l)
	}
}

// play runs the phases: watch, stall while the writer writes, read again
// until the stream ends, watch again, compare.
func (r *slowRun) play(ctx context.Context) error {
	r.streams, r.bufs, r.audit, r.seen = map[uint32]*SlowWatchStream{}, map[uint32][]byte{}, map[uint32]string{}, map[string]int{}
	writer, start, err := r.prepare(ctx)
	if err != nil {
		return err
	}
	defer r.sc.conn.Close()
	stop := context.AfterFunc(ctx, func() { r.sc.conn.SetDeadline(time.Now()) })
	defer stop()
	if err := r.open(ctx, 1, r.a.watchPath(start), false); err != nil {
		return err
	}
	r.writerDone = make(chan struct{})
	go r.write(ctx, writer)
	err = r.stall(ctx)
	if err == nil {
		err = r.drain(ctx)
	}
	if err == nil {
		err = r.rewatch(ctx)
	}
	<-r.writerDone
	r.compare()
	r.close()
	return errors.Join(err, r.writerErr)
}

// prepare reads the Lease's resourceVersion, makes the writer's
// client and dials.
func (r *slowRun) prepare(ctx context.Context) (kubernetes.Interface, string, error) {
	cfg, err := r.p.cluster.RESTConfigAs(r.user)
	if err != nil {
		return nil, "", err
	}
	cfg.UserAgent, cfg.QPS = ActionUserAgent, -1
	writer, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, "", err
	}
	lease, err := writer.CoordinationV1().Leases(r.a.Namespace).Get(ctx, r.a.Lease, metav1.GetOptions{})
	if err != nil {
		return nil, "", fmt.Errorf("slowWatch: %w", err)
	}
	r.logf("-- Lease %s is at resourceVersion %s: the watch starts there", r.ev.Lease, lease.ResourceVersion)
	sc, proto, err := dialSlow(ctx, r.hc)
	if err != nil {
		return nil, "", err
	}
	r.sc = sc
	r.logf("* TLS to %s, ALPN offering h2: the server chose %q", r.hc.base.Host, proto)
	sc.logSent = func(f http2.Frame) {
		r.logLines(h2wire.Lines(">", f, frameLineWidth))
	}
	r.logf("> %q (the client preface, %d bytes)", http2.ClientPreface, len(http2.ClientPreface))
	r.start = lease.ResourceVersion
	return writer, lease.ResourceVersion, sc.start(r.a.Window)
}

// write patches the Lease Changes times, one after the other, and
// keeps the resourceVersions the API server answered with.
func (r *slowRun) write(ctx context.Context, c kubernetes.Interface) {
	defer close(r.writerDone)
	leases := c.CoordinationV1().Leases(r.a.Namespace)
	for i := 1; i <= r.a.Changes; i++ {
		patch := fmt.Appendf(nil, `{"metadata":{"labels":{"kubesim.io/change":"%d"}}}`, i)
		lease, err := leases.Patch(ctx, r.a.Lease, types.MergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			r.writerErr = fmt.Errorf("slowWatch: patch %d: %w", i, err)
			return
		}
		r.written = append(r.written, lease.ResourceVersion)
	}
}

// open sends a watch on stream id and waits for its HEADERS; with
// reading, it gives the stream a window large enough for the rest.
func (r *slowRun) open(ctx context.Context, id uint32, path string, reading bool) error {
	r.streams[id] = &SlowWatchStream{Stream: id, Path: path}
	if err := r.sc.get(id, path); err != nil {
		return err
	}
	if reading {
		if err := r.sc.fr.WriteWindowUpdate(id, slowGiveBack); err != nil {
			return err
		}
	}
	for r.streams[id].Status == 0 {
		if err := r.next(ctx, nil, true); err != nil {
			return err
		}
	}
	if st := r.streams[id].Status; st != 200 {
		return fmt.Errorf("slowWatch: the watch on stream %d answered %d", id, st)
	}
	return nil
}

// next handles one frame (logged in full when verbose, else a DATA frame
// only by its events), or returns when wake is ready (nil: never).
func (r *slowRun) next(ctx context.Context, wake <-chan struct{}, verbose bool) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-wake:
		return nil
	case f, ok := <-r.sc.frames:
		return r.frame(f, ok, verbose)
	}
}

// frame handles a frame received from the reader (ok false: none, the
// reader has ended).
func (r *slowRun) frame(f slowFrame, ok, verbose bool) error {
	if !ok || f.err != nil {
		return fmt.Errorf("slowWatch: reading a frame: %v", f.err)
	}
	return r.handle(f, verbose)
}

// handle does what a client does with f, but give window back.
func (r *slowRun) handle(f slowFrame, verbose bool) error {
	id := f.hdr.StreamID
	st := r.streams[id]
	ended := f.hdr.Flags.Has(http2.FlagDataEndStream) && f.hdr.Type == http2.FrameData
	if verbose || f.hdr.Type != http2.FrameData || ended {
		r.logLines(f.lines)
	}
	switch f.hdr.Type {
	case http2.FrameData:
		if st != nil {
			r.data(st, f.data, ended)
		}
	case http2.FrameHeaders:
		if st != nil {
			st.Status, _ = strconv.Atoi(f.status)
			r.audit[id] = f.auditID
			r.p.noteRequest(f.auditID)
		}
	case http2.FrameRSTStream:
		if st != nil {
			st.EndedBy = "RST_STREAM"
		}
	case http2.FrameGoAway:
		return errors.New("slowWatch: the server sent GOAWAY")
	}
	return r.sc.answer(f)
}

// data decodes the events in a DATA frame's payload.
func (r *slowRun) data(st *SlowWatchStream, payload []byte, ended bool) {
	if st.Stream == 1 {
		r.firstBytes += len(payload)
	}
	var evs []watchEvent
	r.bufs[st.Stream] = decodeEvents(append(r.bufs[st.Stream], payload...), &evs)
	for _, ev := range evs {
		r.logf("  stream %d: %s", st.Stream, describeEvent(ev))
		switch ev.Type {
		case "ERROR":
			st.Errors = append(st.Errors, fmt.Sprintf("%d: %s", ev.Object.Code, ev.Object.Message))
		case "ADDED", "MODIFIED", "DELETED":
			rv := ev.Object.Metadata.ResourceVersion
			st.Read = append(st.Read, rv)
			r.seen[rv]++
		}
	}
	if ended {
		st.EndedBy = "END_STREAM"
	}
}

// dropOf finds the API server's record of the watch cache dropping the
// watch on stream id.
func (r *slowRun) dropOf(id uint32) (*flow.WatchTermination, <-chan struct{}) {
	events, changed := r.p.snapshot()
	for _, ev := range events {
		if t := ev.Terminated; t != nil && t.AuditID != "" && t.AuditID == r.audit[id] {
			return t, changed
		}
	}
	return nil, changed
}
