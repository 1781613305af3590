package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// keepAlive is how often an idle stream gets a comment line, so that a
// proxy or the browser does not take it for dead.
const keepAlive = 15 * time.Second

// batch bounds the messages a stream writes before it flushes.
const batch = 512

// handleEvents serves GET /api/events: the lesson's log as Server-Sent
// Events, then each message as it comes, until the page goes or the
// server closes. Every message has the id "<epoch>.<n>" (n counts the
// epoch's messages up to it): a page that reconnects with
// Last-Event-ID resumes after it, or, for an epoch over, at the current
// one's beginning.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	role, err := s.role(r)
	if err != nil {
		writeError(w, http.StatusForbidden, err.Error())
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "streaming is not supported by this connection")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	signal, stop := s.hub.follow()
	defer stop()
	c := parseLastEventID(r.Header.Get("Last-Event-ID"))
	if !s.writeHello(w, role) {
		return
	}
	flusher.Flush()
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		n, next, err := s.writeLog(w, c, role == roleTeacher)
		if err != nil {
			return
		}
		c = next
		flusher.Flush()
		if n == batch {
			continue // more is waiting
		}
		select {
		case <-signal:
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
			flusher.Flush()
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

// writeLog writes the log's messages after c (a batch at most; a
// viewer's stream skips the teacher's) and returns how many it read and
// the cursor after them.
func (s *Server) writeLog(w http.ResponseWriter, c cursor, teacher bool) (int, cursor, error) {
	entries, first, next, _ := s.hub.read(c, batch)
	for i, e := range entries {
		if e.teacher && !teacher {
			continue
		}
		if _, err := fmt.Fprintf(w, "id: %d.%d\ndata: %s\n\n", next.epoch, first+i+1, e.data); err != nil {
			return 0, c, err
		}
	}
	return len(entries), next, nil
}

// writeHello writes the connection's first message: who the page is and
// the lesson's settings.
func (s *Server) writeHello(w http.ResponseWriter, role string) bool {
	data, err := json.Marshal(s.hello(role))
	if err != nil {
		return false
	}
	_, err = fmt.Fprintf(w, "data: %s\n\n", data)
	return err == nil
}

// parseLastEventID reads "<epoch>.<n>"; anything else starts at the
// beginning of the current epoch.
func parseLastEventID(id string) cursor {
	e, n, ok := strings.Cut(id, ".")
	if !ok {
		return cursor{epoch: -1}
	}
	epoch, err1 := strconv.Atoi(e)
	next, err2 := strconv.Atoi(n)
	if err1 != nil || err2 != nil || next < 0 {
		return cursor{epoch: -1}
	}
	return cursor{epoch: epoch, next: next}
}
