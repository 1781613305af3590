package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// eventStore keeps the flow events of each arrow of a session, by arrow
// id (from 1), and the etcd values its writes stored, by key and
// revision, for the diff of a later write. Safe for concurrent use.
type eventStore struct {
	mu     sync.Mutex
	arrows [][]flow.Event
	values map[string]string // key + "@" + revision → value
}

func newEventStore() eventStore {
	return eventStore{values: map[string]string{}}
}

// add keeps ev as a new arrow's evidence and returns the arrow's id.
func (s *eventStore) add(ev flow.Event) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrows = append(s.arrows, []flow.Event{ev})
	if e := ev.Etcd; e != nil && e.Value != "" {
		s.values[e.Key+"@"+strconv.FormatInt(e.Revision, 10)] = e.Value
	}
	return len(s.arrows)
}

// join makes a request's trace arrow id's evidence: it takes the place
// of what stood for the request until then (an earlier trace of it, or
// the write that drew it), after a kubelet's status report.
func (s *eventStore) join(id int, ev flow.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || id > len(s.arrows) {
		return
	}
	evs := s.arrows[id-1]
	if last := evs[len(evs)-1]; last.Request != nil || last.Etcd != nil {
		evs = evs[:len(evs)-1]
	}
	s.arrows[id-1] = append(evs[:len(evs):len(evs)], ev)
}

// events returns the evidence of arrow id.
func (s *eventStore) events(id int) ([]flow.Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id < 1 || id > len(s.arrows) {
		return nil, false
	}
	return s.arrows[id-1], true
}

// value returns the value key had at rev, if a write of this session
// stored it.
func (s *eventStore) value(key string, rev int64) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[key+"@"+strconv.FormatInt(rev, 10)]
	return v, ok
}

// lineMsg is one line of evidence as the page draws it.
type lineMsg struct {
	Role string `json:"role"`
	Text string `json:"text"`
}

// evidenceMsg is the answer of /api/evidence/ID.
type evidenceMsg struct {
	ID    int       `json:"id"`
	Title string    `json:"title"`
	Lines []lineMsg `json:"lines"`
}

var roleNames = map[flow.Role]string{
	flow.RoleField: "field", flow.RoleHeading: "heading", flow.RoleNote: "note", flow.RoleOK: "ok",
	flow.RoleFailed: "failed", flow.RoleWarning: "warning", flow.RoleAdded: "diff-add",
	flow.RoleRemoved: "diff-del", flow.RoleFraming: "framing", flow.RoleBlank: "blank",
}

// handleEvidence answers GET /api/evidence/ID?lang=: the evidence of one
// arrow of the current session, laid out as the terminal UI lays it out
// (flow.Layout, Full), in the language asked.
func (s *Server) handleEvidence(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/api/evidence/"))
	if err != nil {
		writeError(w, http.StatusBadRequest, "the evidence URL is /api/evidence/<arrow id>, a number")
		return
	}
	l := s.lesson()
	if l == nil {
		writeError(w, http.StatusNotFound, "no lesson is playing")
		return
	}
	evs, ok := l.book.events.events(id)
	if !ok {
		writeError(w, http.StatusNotFound, "no arrow "+strconv.Itoa(id)+" in this lesson")
		return
	}
	lang := r.URL.Query().Get("lang")
	if lang != "zh" {
		lang = "en"
	}
	layout := flow.Layout{Lang: lang, Form: flow.Full, Width: 100}
	out := evidenceMsg{ID: id, Title: title(evs[len(evs)-1]), Lines: []lineMsg{}}
	for i, ev := range evs {
		if i > 0 {
			out.Lines = append(out.Lines, lineMsg{Role: "blank"})
		}
		for _, ln := range layout.Event(ev, flow.Context{Prior: l.prior(r.Context(), ev), Since: ev.Time}) {
			out.Lines = append(out.Lines, lineMsg{Role: roleNames[ln.Role], Text: ln.String()})
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

// title is the heading of an arrow's evidence: the component, the stage
// and what happened.
func title(ev flow.Event) string {
	t := ev.Component
	if ev.Stage > 0 {
		t = "stage " + strconv.Itoa(int(ev.Stage)) + " · " + t
	}
	if ev.Summary != "" {
		t += " · " + ev.Summary
	}
	return t
}

// prior is what the lesson knows of the value an etcd write replaced:
// the value an earlier write of the session stored, else etcd's history
// (MVCC), read within a few seconds.
func (l *lesson) prior(ctx context.Context, ev flow.Event) flow.Prior {
	e := ev.Etcd
	if e == nil || e.PrevRevision == 0 {
		return flow.Prior{}
	}
	if v, ok := l.book.events.value(e.Key, e.PrevRevision); ok {
		return flow.Prior{Value: v, Known: true}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	v, err := l.sess.History(ctx, e.Key, e.PrevRevision)
	if err != nil {
		return flow.Prior{Err: err}
	}
	return flow.Prior{Value: string(v), Known: true}
}
