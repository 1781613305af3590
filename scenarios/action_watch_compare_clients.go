package scenarios

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// observation is a state a client had: the object's resourceVersion
// in an answer or event, and when the client had it.
type observation struct {
	rv string
	at time.Time
}

// compareClient is one client of a comparison. Its fields are written by
// its own goroutine (follow) only, and read once follow has returned.
type compareClient struct {
	name      string
	c         *comparison
	meter     *wireMeter
	transport *http.Transport
	requests  int
	seen      []observation
	// unchanged counts the answers (after the first) with the
	// resourceVersion of the answer before: polls that brought nothing.
	unchanged int
	// waits are, for the long-poller, how long each round took from its
	// request to its event.
	waits     []time.Duration
	readySent bool
}

func newCompareClient(name string, c *comparison) *compareClient {
	m := &wireMeter{}
	return &compareClient{name: name, c: c, meter: m, transport: c.hc.meteredHTTP1Transport(m)}
}

// follow runs the client's way of following the object.
func (cl *compareClient) follow(ctx context.Context) error {
	switch cl.name {
	case ClientPoll:
		return cl.poll(ctx)
	case ClientLongPoll:
		return cl.longPoll(ctx)
	case ClientWatch:
		return cl.watch(ctx)
	}
	return fmt.Errorf("unknown client %q", cl.name)
}

// observe records that the client has the state rv now, and tells the
// writer the first time.
func (cl *compareClient) observe(rv string) {
	if n := len(cl.seen); n > 0 && cl.seen[n-1].rv == rv {
		cl.unchanged++
	}
	cl.seen = append(cl.seen, observation{rv: rv, at: time.Now()})
	if !cl.readySent {
		cl.readySent = true
		cl.c.ready <- struct{}{}
	}
}

// poll GETs the object every pollInterval until it has the last
// change.
func (cl *compareClient) poll(ctx context.Context) error {
	for {
		rv, err := cl.get(ctx)
		if err != nil {
			return err
		}
		cl.observe(rv)
		if cl.c.hasLast(rv) {
			return nil
		}
		if err := sleep(ctx, cl.c.pollInterval()); err != nil {
			return err
		}
	}
}

// longPoll GETs the object once, then long-polls: a watch from the
// last resourceVersion it has, closed after its first event, once per
// change. A round the server ends without an event is followed by
// another from the same resourceVersion.
func (cl *compareClient) longPoll(ctx context.Context) error {
	rv, err := cl.get(ctx)
	if err != nil {
		return err
	}
	cl.observe(rv)
	for seen := 0; seen < cl.c.a.Changes; {
		sent := time.Now()
		resp, err := cl.send(ctx, cl.c.paths.watch(rv))
		if err != nil {
			return err
		}
		ev, err := nextEvent(bufio.NewReader(resp.Body))
		wait := time.Since(sent)
		resp.Body.Close() // before the stream's end: the connection goes with it
		if errors.Is(err, io.EOF) {
			continue
		}
		if err != nil {
			return err
		}
		rv = ev.Object.Metadata.ResourceVersion
		cl.observe(rv)
		cl.waits = append(cl.waits, wait)
		seen++
	}
	return nil
}

// watch sends one watch and reads its events: the current state (ADDED),
// then one per change.
func (cl *compareClient) watch(ctx context.Context) error {
	resp, err := cl.send(ctx, cl.c.paths.watch(""))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := 0; i <= cl.c.a.Changes; i++ {
		ev, err := nextEvent(br)
		if err != nil {
			return fmt.Errorf("after %d events: %w", i, err)
		}
		cl.observe(ev.Object.Metadata.ResourceVersion)
	}
	return nil
}

// get GETs the object and returns its resourceVersion.
func (cl *compareClient) get(ctx context.Context) (string, error) {
	resp, err := cl.send(ctx, cl.c.paths.object)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	rv := resourceVersionOf(body)
	if rv == "" {
		return "", fmt.Errorf("GET %s: no resourceVersion in %s", cl.c.paths.object, truncate(string(body), 200))
	}
	return rv, nil
}

// send makes one GET of path with the client's transport and counts it;
// an answer other than 200 is an error.
func (cl *compareClient) send(ctx context.Context, path string) (*http.Response, error) {
	req, err := cl.c.hc.request(ctx, &HTTPAction{Method: http.MethodGet}, path)
	if err != nil {
		return nil, err
	}
	cl.requests++
	resp, err := cl.transport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	cl.c.p.noteRequest(resp.Header.Get("Audit-Id"))
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<12))
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, truncate(string(body), 200))
	}
	return resp, nil
}

// nextEvent reads the next watch event of a stream: io.EOF if the stream
// ends first, an error for an ERROR event or one without a
// resourceVersion.
func nextEvent(br *bufio.Reader) (watchEvent, error) {
	for {
		line, err := br.ReadBytes('\n')
		var evs []watchEvent
		decodeEvents(line, &evs)
		if len(evs) > 0 {
			ev := evs[0]
			if ev.Type == "ERROR" {
				return ev, fmt.Errorf("watch event ERROR %d: %s", ev.Object.Code, ev.Object.Message)
			}
			if ev.Object.Metadata.ResourceVersion == "" {
				return ev, fmt.Errorf("watch event %s without a resourceVersion", ev.Type)
			}
			return ev, nil
		}
		if err != nil {
			return watchEvent{}, err
		}
	}
}
