package scenarios

import (
	"fmt"
	"slices"
	"time"
)

// WatchCompareEvidence is what a watchCompare step measured: the writer's
// changes and each client's score, in the order poll, longpoll, watch.
// It is the step's Evidence, and its "evidence" in --json.
type WatchCompareEvidence struct {
	// Object is the object followed, as "Kind namespace/name".
	Object  string          `json:"object"`
	Changes []CompareChange `json:"changes"`
	Clients []ClientScore   `json:"clients"`
}

// CompareChange is one change the writer made.
type CompareChange struct {
	// Index counts the changes from 1.
	Index           int    `json:"index"`
	ResourceVersion string `json:"resourceVersion"`
	// WrittenMs is when the change's write returned, in milliseconds
	// since the writer began (once every client had a first state).
	WrittenMs float64 `json:"writtenMs"`
}

// ClientScore is one client's line of the scoreboard. Bytes are counted
// on the client's own connections: HTTP bytes are the HTTP/1.1 messages
// after TLS decryption (status or request lines, headers, chunk framing,
// bodies); TLS bytes everything on the TCP connections, handshakes
// included.
type ClientScore struct {
	Client       string `json:"client"`
	Requests     int    `json:"requests"`
	Connections  int    `json:"connections"`
	HTTPBytesIn  int64  `json:"httpBytesIn"`
	HTTPBytesOut int64  `json:"httpBytesOut"`
	TLSBytesIn   int64  `json:"tlsBytesIn"`
	TLSBytesOut  int64  `json:"tlsBytesOut"`
	// UnchangedAnswers are the answers or events, after the first, with
	// the resourceVersion of the one before (polls that brought
	// nothing).
	UnchangedAnswers int `json:"unchangedAnswers"`
	// RoundWaitsMs are, for the long-poller, how long each round took
	// from its request to its event, in milliseconds.
	RoundWaitsMs []float64 `json:"roundWaitsMs,omitempty"`
	// Seen has one entry per change, in order.
	Seen []ChangeSeen `json:"seen"`
	// SeenAlone counts the changes the client had as a state of their
	// own; the others it saw only as part of a jump to a later state.
	SeenAlone    int     `json:"seenAlone"`
	MedianLateMs float64 `json:"medianLateMs"`
	MaxLateMs    float64 `json:"maxLateMs"`
}

// SeesEvery reports whether the client had every change as a state of
// its own.
func (s ClientScore) SeesEvery() bool { return s.SeenAlone == len(s.Seen) }

// ChangeSeen is how one client saw one change.
type ChangeSeen struct {
	Change int `json:"change"`
	// LateMs is the time from the change's write returning to the
	// client's first state at least as new, in milliseconds (on the
	// monotonic clock). It is below 0 when the client had the change
	// before the writer had its answer.
	LateMs float64 `json:"lateMs"`
	// Alone is true when that first state was the change's own; false
	// when it was a later change's (the change was jumped over).
	Alone bool `json:"alone"`
	// AsOf is the resourceVersion of that first state.
	AsOf string `json:"asOf"`
}

// score builds the evidence from what the writer and the clients
// recorded. A state that is none of the writer's is an error: someone
// else changed the object.
func (c *comparison) score() (*WatchCompareEvidence, error) {
	ev := &WatchCompareEvidence{Object: c.a.Object.String()}
	for i, ch := range c.changes[1:] {
		ev.Changes = append(ev.Changes, CompareChange{Index: i + 1, ResourceVersion: ch.rv, WrittenMs: millis(ch.at.Sub(c.start))})
	}
	for _, cl := range c.clients {
		s, err := scoreClient(c.changes, cl.seen)
		if err != nil {
			return nil, fmt.Errorf("watchCompare: the %s client: %w", cl.name, err)
		}
		s.Client, s.Requests, s.UnchangedAnswers = cl.name, cl.requests, cl.unchanged
		m := cl.meter
		s.Connections = int(m.connections.Load())
		s.HTTPBytesIn, s.HTTPBytesOut = m.httpIn.Load(), m.httpOut.Load()
		s.TLSBytesIn, s.TLSBytesOut = m.tlsIn.Load(), m.tlsOut.Load()
		for _, w := range cl.waits {
			s.RoundWaitsMs = append(s.RoundWaitsMs, millis(w))
		}
		ev.Clients = append(ev.Clients, s)
	}
	return ev, nil
}

// scoreClient scores the states seen (in the order the client had them)
// against changes (changes[0]: the state before the first change): for
// each change, the first state at least as new, and how late it came.
// States are ordered by their place in changes, not by comparing
// resourceVersions (which clients must treat as opaque).
func scoreClient(changes []change, seen []observation) (ClientScore, error) {
	place := map[string]int{}
	for i, ch := range changes {
		place[ch.rv] = i
	}
	var s ClientScore
	if len(changes) < 2 {
		return s, fmt.Errorf("no changes to score")
	}
	var lates []float64
	for i := 1; i < len(changes); i++ {
		j := slices.IndexFunc(seen, func(o observation) bool {
			p, ok := place[o.rv]
			return !ok || p >= i
		})
		if j < 0 {
			return s, fmt.Errorf("change %d (resourceVersion %s) was never seen", i, changes[i].rv)
		}
		p, ok := place[seen[j].rv]
		if !ok {
			return s, fmt.Errorf("resourceVersion %s is none of the writer's: did something else change the object?", seen[j].rv)
		}
		late := millis(seen[j].at.Sub(changes[i].at))
		s.Seen = append(s.Seen, ChangeSeen{Change: i, LateMs: late, Alone: p == i, AsOf: seen[j].rv})
		if p == i {
			s.SeenAlone++
		}
		lates = append(lates, late)
	}
	s.MedianLateMs, s.MaxLateMs = median(lates), slices.Max(lates)
	return s, nil
}

// median is the middle of xs (the mean of the two middle ones for an
// even count); 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(xs))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// millis is d in milliseconds.
func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
