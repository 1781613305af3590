package web

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// The lifelines of the diagram. A kubelet's is "kubelet/<node>", as its
// flow events' component; a client the diagram knows no better name for
// is client.
const (
	lineClient      = "client"
	lineAPIServer   = "apiserver"
	lineEtcd        = "etcd"
	lineScheduler   = "scheduler"
	lineControllers = "controllers"
)

// The kinds of arrows (arrowMsg.Kind).
const (
	kindRequest    = "request"
	kindResponse   = "response"
	kindEtcd       = "etcd"
	kindWatch      = "watch"
	kindSchedule   = "schedule"
	kindRuntime    = "runtime"
	kindStatus     = "status"
	kindController = "controller"
	kindTerminated = "terminated"
)

// The user agents of kubesim's own clients whose requests are not the
// lesson's: the web view's watches (the cluster's nodes and events), the
// terminal UI's (tui's tuiUserAgent) and the expectations' checks
// (scenarios.ExpectUserAgent).
const (
	webUserAgent    = "kubesim-web"
	tuiUserAgent    = "kubesim-tui"
	expectUserAgent = "kubesim-expect"
)

// actionUserAgent is the user agent of a scenario step's clients: its
// requests are the lesson's own.
const actionUserAgent = tui.ActionUserAgent

// lifeline is the lifeline of the client a user is: the scheduler, the
// controller manager (its own identity, or a controller's service
// account), a node's kubelet, or a client.
func lifeline(user string) string {
	switch {
	case user == "system:kube-scheduler":
		return lineScheduler
	case user == "system:kube-controller-manager",
		strings.HasPrefix(user, "system:serviceaccount:kube-system:") && strings.HasSuffix(user, "-controller"):
		return lineControllers
	case strings.HasPrefix(user, "system:node:"):
		return "kubelet/" + strings.TrimPrefix(user, "system:node:")
	case user == "system:apiserver":
		return lineAPIServer
	}
	return lineClient
}

// drawn reports whether a request is one the diagram draws: a lesson's
// own requests, any request of a pod's eight stages, and the writes the
// components and other clients (kubectl in a second terminal) make once
// the lesson has begun (boot says it had not: the cluster's bootstrap);
// not the heartbeats every component sends whatever happens (Lease
// renewals, a kubelet's node status, Events, service account tokens),
// nor any read or watch but the lesson's, nor the web view's own.
func drawn(stage flow.Stage, method, uri, user, agent string, boot bool) bool {
	if stage > 0 || agent == actionUserAgent {
		return true
	}
	if boot || user == "" || internalAgent(agent) {
		return false
	}
	switch method {
	case "GET", "HEAD", "OPTIONS", "WATCH", "LIST":
		return false
	}
	path := uri
	if u, err := url.Parse(uri); err == nil {
		path = u.Path
	}
	for _, seg := range strings.Split(path, "/") {
		switch seg {
		case "leases", "events", "serviceaccounts", "kube-node-lease":
			return false
		}
	}
	if strings.HasPrefix(user, "system:node:") && strings.HasPrefix(path, "/api/v1/nodes/") {
		return false // the node's own status and heartbeat
	}
	return true
}

// internalAgent reports whether agent is one of kubesim's own clients
// whose requests are not the lesson's: the expectations' checks, the
// terminal UI's and the web view's watches.
func internalAgent(agent string) bool {
	switch agent {
	case webUserAgent, tuiUserAgent, expectUserAgent:
		return true
	}
	return false
}

// book turns one session's flow events into arrows and keeps each
// arrow's events for its evidence. arrows is called from one goroutine;
// the store is safe for concurrent use (the evidence handler reads it).
type book struct {
	start time.Time
	// requests maps the audit ID of a request whose arrow is drawn to
	// that arrow: its answer is drawn back, its trace becomes the
	// arrow's evidence.
	requests map[string]int
	// reports maps a kubelet's status report not yet matched to its
	// request (by user and pod UID) to the report's arrow.
	reports map[string]int
	// wrote holds the audit IDs whose etcd write is drawn from its own
	// event (a pod's): the others' come from their traces.
	wrote  map[string]bool
	events eventStore
}

func newBook(start time.Time) *book {
	return &book{start: start, requests: map[string]int{}, reports: map[string]int{}, wrote: map[string]bool{}, events: newEventStore()}
}

// arrow returns a new arrow for ev, its evidence ev.
func (b *book) arrow(ev flow.Event, kind, from, to, label string) arrowMsg {
	return arrowMsg{T: "arrow", ID: b.events.add(ev), Seq: ev.Seq, At: b.at(ev.Time), Stage: int(ev.Stage),
		Kind: kind, From: from, To: to, Label: label, Pod: podOf(ev)}
}

// arrows returns ev's arrows (none for an event the diagram does not
// draw), numbered after the book's earlier ones.
func (b *book) arrows(ev flow.Event) []arrowMsg {
	switch {
	case ev.Request != nil:
		return b.requestArrows(ev)
	case ev.Etcd != nil:
		return b.etcdArrows(ev)
	case ev.Watch != nil:
		return []arrowMsg{b.arrow(ev, kindWatch, lineAPIServer, lifeline(ev.Watch.User), fmt.Sprintf("%s rv=%s", ev.Watch.Type, ev.Watch.ResourceVersion))}
	case ev.Scheduling != nil:
		return []arrowMsg{b.arrow(ev, kindSchedule, lineScheduler, lineScheduler, scheduleLabel(ev.Scheduling))}
	case ev.Runtime != nil:
		return []arrowMsg{b.arrow(ev, kindRuntime, ev.Component, ev.Component, runtimeLabel(ev.Runtime))}
	case ev.Status != nil:
		// The report is the kubelet's PATCH of the pod's status: one
		// arrow, whose request trace joins it when it comes.
		a := b.arrow(ev, kindStatus, lifeline(ev.Status.User), lineAPIServer, "PATCH status ("+ev.Status.Phase+")")
		b.reports[ev.Status.User+"/"+string(ev.Object.UID)] = a.ID
		return []arrowMsg{a}
	case ev.Controller != nil:
		c := ev.Controller
		return []arrowMsg{b.arrow(ev, kindController, lineControllers, lineControllers, c.Controller+" sync "+c.Key)}
	case ev.Terminated != nil:
		t := ev.Terminated
		return []arrowMsg{b.arrow(ev, kindTerminated, lineAPIServer, lifeline(t.User), fmt.Sprintf("watch closed: buffer of %d full", t.BufferSize))}
	}
	return nil
}

// boot reports whether ev happened before the lesson began (the
// cluster's start).
func (b *book) boot(ev flow.Event) bool {
	return !ev.Time.IsZero() && ev.Time.Before(b.start)
}

// etcdArrows draws a write the diagram follows. The request it was made
// for is drawn first when its arrow is not yet (a binding, a status
// patch: their traces come when they are answered, after the write).
func (b *book) etcdArrows(ev flow.Event) []arrowMsg {
	e := ev.Etcd
	by := e.By
	if ev.Stage == 0 && (by == nil || !drawn(0, by.Method, by.URI, by.User, by.UserAgent, b.boot(ev))) {
		return nil
	}
	var out []arrowMsg
	if by != nil && by.AuditID != "" {
		b.wrote[by.AuditID] = true
	}
	if by != nil && by.AuditID != "" && b.requests[by.AuditID] == 0 {
		if id := b.reports[by.User+"/"+string(ev.Object.UID)]; id != 0 && strings.HasSuffix(by.URI, "/status") {
			b.requests[by.AuditID] = id // the kubelet's report, drawn
			delete(b.reports, by.User+"/"+string(ev.Object.UID))
		} else {
			req := b.arrow(ev, kindRequest, lifeline(by.User), lineAPIServer, by.Method+" "+shortURI(by.URI))
			req.Stage = 0
			b.requests[by.AuditID] = req.ID
			out = append(out, req)
		}
	}
	return append(out, b.arrow(ev, kindEtcd, lineAPIServer, lineEtcd, fmt.Sprintf("%s %s rev %d", e.Op, e.Key, e.Revision)))
}

// requestArrows draws a request: its arrow to the API server when it
// comes (a create's stage-1 event, before it is stored) or, when no
// earlier event drew it, when it is answered; and its answer.
func (b *book) requestArrows(ev flow.Event) []arrowMsg {
	r := ev.Request
	if !drawn(ev.Stage, r.Method, r.URI, r.User, r.UserAgent, b.boot(ev)) {
		return nil
	}
	from := lifeline(r.User)
	var out []arrowMsg
	id := b.requests[r.AuditID]
	if id == 0 {
		id = b.reports[r.User+"/"+string(ev.Object.UID)]
		if id != 0 && r.Method == "PATCH" && strings.HasSuffix(r.URI, "/status") {
			delete(b.reports, r.User+"/"+string(ev.Object.UID))
		} else {
			id = 0
		}
	}
	if id != 0 {
		b.events.join(id, ev) // the arrow drawn: its evidence is now the trace
	} else {
		req := b.arrow(ev, kindRequest, from, lineAPIServer, r.Method+" "+shortURI(r.URI))
		req.Hops = hops(r)
		id = req.ID
		out = append(out, req)
	}
	if r.AuditID != "" {
		b.requests[r.AuditID] = id
	}
	if r.Code != 0 && !b.wrote[r.AuditID] {
		// The API server records its etcd writes as events of their own
		// for pods only; another object's write is in its trace.
		if label, ok := storedLabel(r); ok {
			out = append(out, b.arrow(ev, kindEtcd, lineAPIServer, lineEtcd, label))
		}
	}
	if r.Code != 0 {
		delete(b.wrote, r.AuditID)
		resp := b.arrow(ev, kindResponse, lineAPIServer, from, responseLabel(r))
		resp.Stage = 0 // the answer belongs to no stage: the request's did
		out = append(out, resp)
		delete(b.requests, r.AuditID)
	}
	return out
}

// storedLabel is the label of the etcd write a request's trace says it
// made (its "stored" step), if it made one.
func storedLabel(r *flow.RequestTrace) (string, bool) {
	for _, st := range r.Steps {
		if st.Name != "stored" || st.Fields["key"] == "" {
			continue
		}
		label := st.Fields["verb"] + " " + st.Fields["key"]
		if st.Fields["verb"] == "" {
			label = "delete " + st.Fields["key"]
		}
		if rev := st.Fields["revision"]; rev != "" {
			label += " rev " + rev
		}
		return label, true
	}
	return "", false
}

// hops lists the servers of the chain the request went through, from
// its trace's steps (apiserver.TraceHop).
func hops(r *flow.RequestTrace) []hopMsg {
	var out []hopMsg
	for _, s := range r.Steps {
		switch s.Name {
		case "aggregator", "kube-apiserver", "apiextensions", "not-found":
			out = append(out, hopMsg{Server: s.Name, Outcome: s.Outcome})
		}
	}
	return out
}

func (b *book) at(t time.Time) int64 {
	if t.IsZero() || t.Before(b.start) {
		return 0
	}
	return t.Sub(b.start).Milliseconds()
}

// podOf names the pod (or object) an event is about, "ns/name".
func podOf(ev flow.Event) string {
	o := ev.Object
	if o.Name == "" {
		return ""
	}
	if o.Namespace == "" {
		return o.Name
	}
	return o.Namespace + "/" + o.Name
}

// shortURI cuts a URI's query to what a label has room for.
func shortURI(uri string) string {
	const max = 90
	if len(uri) <= max {
		return uri
	}
	return uri[:max-1] + "…"
}

func responseLabel(r *flow.RequestTrace) string {
	text := http.StatusText(r.Code)
	if text == "" {
		return fmt.Sprint(r.Code)
	}
	return fmt.Sprintf("%d %s", r.Code, text)
}

func scheduleLabel(d *flow.SchedulingDecision) string {
	if d.Chosen == "" {
		return "filter+score: no node fits"
	}
	return "filter+score → " + d.Chosen
}

func runtimeLabel(r *flow.RuntimeAction) string {
	label := r.Action + " " + r.Container
	if r.Action == "pull" && r.Image != "" {
		label = "pull " + r.Image
	}
	if r.Duration > 0 {
		label += " " + flow.FormatDuration(r.Duration)
	}
	if r.Result != "" && r.Result != "ok" {
		label += " (" + r.Result + ")"
	}
	return label
}
