package tui

import (
	"fmt"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// tab is one of the evidence pane's tabs.
type tab int

const (
	tabRequest tab = iota
	tabEtcd
	tabWatch
	tabScheduler
	tabKubelet
	// tabStep is the scenario step's own evidence (steptab.go).
	tabStep
	numTabs
)

var tabNames = [numTabs]flow.Text{
	{En: "request", Zh: "请求"},
	{En: "etcd", Zh: "etcd"},
	{En: "watch", Zh: "watch"},
	{En: "scheduler", Zh: "调度器"},
	{En: "kubelet", Zh: "kubelet"},
	{En: "step", Zh: "步骤"},
}

// defaultTab is the tab that shows stage s's own evidence.
func defaultTab(s flow.Stage) tab {
	switch s {
	case flow.StagePersisted, flow.StageBindingPersisted, flow.StageStatusPersisted:
		return tabEtcd
	case flow.StageSchedulerNotified:
		return tabWatch
	case flow.StageScheduled:
		return tabScheduler
	case flow.StageKubeletNotified, flow.StageStatusReported:
		return tabKubelet
	}
	return tabRequest
}

// bestTab is the tab to open for stage s of t: the stage's own
// (defaultTab) when it has that evidence yet, else the first tab that
// has some of stage s (stage 6 starts with the kubelet's watch frame,
// before any runtime action).
func bestTab(t *podTrack, s flow.Stage) tab {
	d := defaultTab(s)
	if t != nil && s == flow.StageScheduled && len(t.failed) > 0 {
		return tabScheduler
	}
	if t == nil || s < flow.StageAdmitted || s > flow.StageStatusPersisted || stageHas(t, s, d) {
		return d
	}
	for tb := tab(0); tb < numTabs; tb++ {
		if stageHas(t, s, tb) {
			return tb
		}
	}
	return d
}

// scenarioRequest reports whether r is one the scenario's steps made:
// sent by the clients of the steps' actions (ActionUserAgent), not by the
// scheduler, a kubelet, the controller manager (its Lease renewals and
// its controllers' reads and writes), the expectation checks or the TUI.
func scenarioRequest(r *flow.RequestTrace) bool {
	return r.UserAgent == ActionUserAgent
}

// ActionUserAgent is the user agent of the clients of a scenario step's
// action (scenarios.ActionUserAgent; the tui cannot import scenarios).
const ActionUserAgent = "kubesim-scenario"

// tuiUserAgent is the user agent of the TUI's own watches, so that their
// requests are not taken for the scenario's.
const tuiUserAgent = "kubesim-tui"

// maxStepRequests bounds the requests kept per scenario step.
const maxStepRequests = 64

// has reports whether e carries tb's kind of evidence.
func (tb tab) has(e flow.Event) bool {
	switch tb {
	case tabRequest:
		return e.Request != nil
	case tabEtcd:
		return e.Etcd != nil
	case tabWatch:
		return e.Watch != nil
	case tabScheduler:
		return e.Scheduling != nil
	case tabKubelet:
		return e.Runtime != nil || e.Status != nil
	}
	return false
}

// historyKey names one value in etcd's history.
type historyKey struct {
	Key string
	Rev int64
}

// historyEntry is a value read with Session.History (or the error).
type historyEntry struct {
	Value []byte
	Err   error
}

// evidenceView shows the evidence of one stage of a pod in one tab (or
// a step's requests): it picks the events, has a Full flow.Layout lay
// them out and draws the lines with its styles (draw). The markdown
// export uses it without colours.
type evidenceView struct {
	st    Styles
	lang  string
	width int
	// etcdHistory holds the values read from etcd's history, for the
	// diffs.
	etcdHistory map[historyKey]historyEntry
}

// layout is the flow.Layout the view draws.
func (v evidenceView) layout() flow.Layout {
	return flow.Layout{Lang: v.lang, Form: flow.Full, Width: v.width}
}

// note is a line of the TUI's own words about the evidence.
func note(text string) flow.Line { return flow.Line{Role: flow.RoleNote, Text: text} }

// blankLine separates two pieces of evidence.
var blankLine = flow.Line{Role: flow.RoleBlank}

// render returns the lines and the history values it needs but does not
// have yet.
func (v evidenceView) render(t *podTrack, s flow.Stage, tb tab) ([]string, []historyKey) {
	if t == nil {
		return v.draw([]flow.Line{note(tr(v.lang, "waiting_pod"))}), nil
	}
	evs, from := v.pick(t, s, tb)
	if len(evs) == 0 {
		return v.draw([]flow.Line{note(fmt.Sprintf(tr(v.lang, "no_evidence"), tabNames[tb].In(v.lang)))}), nil
	}
	var out []flow.Line
	if s == flow.StageAdmitted && tb == tabRequest {
		out = v.creatorLines(t)
	}
	if from != s {
		out = append(out, note(fmt.Sprintf(tr(v.lang, "from_stage"), from)))
	}
	var need []historyKey
	since := runtimeStart(evs)
	for i, e := range evs {
		c := flow.Context{Since: since}
		if i > 0 && e.Runtime == nil {
			out = append(out, blankLine)
		}
		switch {
		case e.Request != nil:
			if full, ok := t.traces[e.Request.AuditID]; ok {
				e.Request = full
			}
		case e.Etcd != nil:
			var pending bool
			c.Prior, pending = v.prior(t, e.Etcd)
			if pending {
				need = append(need, historyKey{e.Etcd.Key, e.Etcd.PrevRevision})
			}
		}
		out = append(out, v.layout().Event(e, c)...)
	}
	return v.draw(out), need
}

// prior is what the view knows of the value w replaced: etcd's history
// as read, or, when that failed, the write of that revision if the track
// recorded it; pending is true while the history has still to be read.
func (v evidenceView) prior(t *podTrack, w *flow.EtcdWrite) (p flow.Prior, pending bool) {
	if w.PrevRevision == 0 {
		return flow.Prior{}, false
	}
	h, ok := v.etcdHistory[historyKey{w.Key, w.PrevRevision}]
	switch {
	case !ok:
		return flow.Prior{Pending: true}, true
	case h.Err == nil:
		return flow.Prior{Value: string(h.Value), Known: true}, false
	}
	p.Err = h.Err
	for _, e := range t.events() {
		if e.Etcd != nil && e.Etcd.Key == w.Key && e.Etcd.Revision == w.PrevRevision && e.Etcd.Value != "" {
			p.Value, p.Known = e.Etcd.Value, true
		}
	}
	return p, false
}

// pick returns the events of stage s with tb's evidence; when s has none,
// those of the nearest stage that has (earlier first).
func (v evidenceView) pick(t *podTrack, s flow.Stage, tb tab) ([]flow.Event, flow.Stage) {
	of := func(s flow.Stage) []flow.Event {
		var out []flow.Event
		if s < flow.StageAdmitted || s > flow.StageStatusPersisted {
			return nil
		}
		if tb == tabScheduler && s == flow.StageScheduled {
			out = append(out, t.failed...)
		}
		for _, e := range t.stages[s] {
			if tb.has(e) {
				out = append(out, e)
			}
		}
		return out
	}
	if evs := of(s); len(evs) > 0 {
		return evs, s
	}
	for d := flow.Stage(1); d < 8; d++ {
		if evs := of(s - d); len(evs) > 0 {
			return evs, s - d
		}
		if evs := of(s + d); len(evs) > 0 {
			return evs, s + d
		}
	}
	return nil, s
}

// stepRequest is a request a scenario step made, and how many times in
// a row the same one was made (an expectation polls until it holds).
type stepRequest struct {
	tr  *flow.RequestTrace
	obj flow.ObjectRef
	n   int
}

// addStepRequest adds e's trace to rs; the same request as the last
// one (method, URI, user and status) only counts again.
func addStepRequest(rs []stepRequest, e flow.Event) []stepRequest {
	r := e.Request
	if n := len(rs); n > 0 {
		if p := rs[n-1].tr; p.Method == r.Method && p.URI == r.URI && p.User == r.User && p.Code == r.Code {
			rs[n-1].tr, rs[n-1].n = r, rs[n-1].n+1
			return rs
		}
	}
	if len(rs) >= maxStepRequests {
		rs = rs[1:]
	}
	return append(rs, stepRequest{tr: r, obj: e.Object, n: 1})
}

// requests renders whole request traces, the last first.
func (v evidenceView) requests(rs []stepRequest) []string {
	var out []flow.Line
	for i := len(rs) - 1; i >= 0; i-- {
		if i < len(rs)-1 {
			out = append(out, blankLine)
		}
		if rs[i].n > 1 {
			out = append(out, note(fmt.Sprintf(tr(v.lang, "made_times"), rs[i].n)))
		}
		out = append(out, v.layout().Event(flow.Event{Request: rs[i].tr}, flow.Context{})...)
	}
	return v.draw(out)
}

// runtimeStart is when the first runtime action of evs began (actions
// are recorded when they end); the first event's time without any.
func runtimeStart(evs []flow.Event) time.Time {
	var t0 time.Time
	for _, e := range evs {
		if e.Runtime == nil {
			continue
		}
		if b := e.Time.Add(-e.Runtime.Duration); t0.IsZero() || b.Before(t0) {
			t0 = b
		}
	}
	if t0.IsZero() && len(evs) > 0 {
		t0 = evs[0].Time
	}
	return t0
}
