package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

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
	numTabs
)

var tabNames = [numTabs]flow.Text{
	{En: "request", Zh: "请求"},
	{En: "etcd", Zh: "etcd"},
	{En: "watch", Zh: "watch"},
	{En: "scheduler", Zh: "调度器"},
	{En: "kubelet", Zh: "kubelet"},
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
// not the scheduler's, a kubelet's or the TUI's own.
func scenarioRequest(r *flow.RequestTrace) bool {
	return r.User != "system:kube-scheduler" && !strings.HasPrefix(r.User, "system:node:") &&
		r.UserAgent != tuiUserAgent && r.UserAgent != ExpectUserAgent
}

// ExpectUserAgent is the user agent of a scenario runner's expectation
// checks (scenarios.ExpectUserAgent; the tui cannot import scenarios): polls,
// not the step's requests.
const ExpectUserAgent = "kubesim-expect"

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

// lines builds wrapped, styled lines of one width.
type lines struct {
	width int
	out   []string
}

// add wraps text to the width and styles each line; continuation lines
// are indented by indent spaces.
func (l *lines) add(st lipgloss.Style, indent int, text string) {
	w := max(l.width, 10)
	// with an indent, every row is wrapped to the width left of it
	ww := max(w-indent, 5)
	for _, part := range strings.Split(text, "\n") {
		var wrapped string
		if wide(part) {
			// CJK text has no spaces to break at: break anywhere
			wrapped = ansi.Hardwrap(part, ww, true)
		} else {
			wrapped = ansi.Wrap(part, ww, "")
		}
		for i, r := range strings.Split(wrapped, "\n") {
			if i > 0 {
				r = strings.Repeat(" ", indent) + r
			}
			l.out = append(l.out, st.Render(r))
		}
	}
}

// hard adds text cut into width-wide pieces (bytes on the wire, where
// word boundaries mean nothing).
func (l *lines) hard(st lipgloss.Style, text string) {
	w := max(l.width, 10)
	for _, ln := range strings.Split(ansi.Hardwrap(text, w, true), "\n") {
		l.out = append(l.out, st.Render(ln))
	}
}

// signed adds a diff line: sign, then text cut into pieces that each
// start with sign again, so that a wrapped line still reads as added or
// removed without colours.
func (l *lines) signed(st lipgloss.Style, sign, text string) {
	w := max(l.width-ansi.StringWidth(sign), 5)
	for _, ln := range strings.Split(ansi.Hardwrap(text, w, true), "\n") {
		l.out = append(l.out, st.Render(sign+ln))
	}
}

// blank adds an empty line.
func (l *lines) blank() { l.out = append(l.out, "") }

// evidenceView renders tab tb of stage s for pod t.
type evidenceView struct {
	st    Styles
	lang  string
	width int
	hist  map[historyKey]historyEntry
}

// render returns the lines and the history values it needs but does not
// have yet.
func (v evidenceView) render(t *podTrack, s flow.Stage, tb tab) ([]string, []historyKey) {
	l := &lines{width: v.width}
	if t == nil {
		l.add(v.st.Dim, 0, tr(v.lang, "waiting_pod"))
		return l.out, nil
	}
	evs, from := v.pick(t, s, tb)
	if len(evs) == 0 {
		l.add(v.st.Dim, 0, fmt.Sprintf(tr(v.lang, "no_evidence"), tabNames[tb].In(v.lang)))
		return l.out, nil
	}
	if from != s {
		l.add(v.st.Dim, 0, fmt.Sprintf(tr(v.lang, "from_stage"), from))
	}
	var need []historyKey
	for i, e := range evs {
		if i > 0 && e.Runtime == nil {
			l.blank()
		}
		switch tb {
		case tabRequest:
			v.request(l, t, e)
		case tabEtcd:
			if k, ok := v.etcd(l, t, e); !ok {
				need = append(need, k)
			}
		case tabWatch:
			v.watch(l, e)
		case tabScheduler:
			v.scheduling(l, e)
		case tabKubelet:
			v.kubelet(l, e, runtimeStart(evs))
		}
	}
	return l.out, need
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

func (v evidenceView) request(l *lines, t *podTrack, e flow.Event) {
	r := e.Request
	if full, ok := t.traces[r.AuditID]; ok {
		r = full
	}
	v.trace(l, r)
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
	l := &lines{width: v.width}
	for i := len(rs) - 1; i >= 0; i-- {
		if i < len(rs)-1 {
			l.blank()
		}
		if rs[i].n > 1 {
			l.add(v.st.Dim, 0, fmt.Sprintf(flow.Text{En: "(made %d times; the last one:)", Zh: "（发了 %d 次，这是最后一次：）"}.In(v.lang), rs[i].n))
		}
		v.trace(l, rs[i].tr)
	}
	return l.out
}

// trace renders one request trace: the request, who sent it, the route,
// the outcome and the steps.
func (v evidenceView) trace(l *lines, r *flow.RequestTrace) {
	l.add(v.st.Bold, 2, fmt.Sprintf("%s %s  %s", r.Method, r.URI, r.Proto))
	user := r.User
	if user == "" {
		user = "(unauthenticated)"
	}
	l.add(v.st.Narration, 2, fmt.Sprintf("user %s  groups %s", user, strings.Join(r.Groups, ",")))
	if r.Route != "" {
		l.add(v.st.Narration, 2, "route "+r.Route)
	}
	if r.Code >= 400 {
		l.add(v.st.Fail, 2, fmt.Sprintf("→ %d, %d bytes in %s", r.Code, r.BytesSent, short(r.Duration)))
	} else if r.Code != 0 {
		l.add(v.st.OK, 2, fmt.Sprintf("→ %d, %d bytes in %s", r.Code, r.BytesSent, short(r.Duration)))
	} else {
		l.add(v.st.Warn, 2, "… "+inProgress(v.lang))
	}
	for i, s := range r.Steps {
		st := v.st.Narration
		switch s.Outcome {
		case "failed", "denied", "rejected":
			st = v.st.Fail
		}
		l.add(st, 0, fmt.Sprintf("%d %-8s %-13s %s", i+1, "+"+short(s.At), s.Name, s.Outcome))
		if s.Detail != "" {
			l.add(v.st.Dim, 4, "    "+s.Detail)
		}
	}
}

func inProgress(lang string) string {
	return flow.Text{En: "in progress (the trace so far)", Zh: "进行中（目前的轨迹）"}.In(lang)
}

// etcd renders an etcd write and its diff; ok is false when the previous
// revision still has to be read (the key is returned).
func (v evidenceView) etcd(l *lines, t *podTrack, e flow.Event) (historyKey, bool) {
	w := e.Etcd
	l.add(v.st.Bold, 2, fmt.Sprintf("%s %s", w.Op, w.Key))
	rev := fmt.Sprintf("revision %d", w.Revision)
	if w.PrevRevision > 0 {
		rev += fmt.Sprintf("  (previous %d)", w.PrevRevision)
	}
	l.add(v.st.Narration, 2, fmt.Sprintf("%s  %d bytes", rev, len(w.Value)))
	after := prettyJSON([]byte(w.Value))
	if w.PrevRevision == 0 {
		l.add(v.st.Dim, 0, tr(v.lang, "created"))
		v.diff(l, lineDiff("", after))
		return historyKey{}, true
	}
	k := historyKey{w.Key, w.PrevRevision}
	h, ok := v.hist[k]
	if !ok {
		l.add(v.st.Dim, 0, fmt.Sprintf(tr(v.lang, "loading"), w.PrevRevision))
		return k, false
	}
	before := ""
	if h.Err != nil {
		l.add(v.st.Warn, 2, fmt.Sprintf(tr(v.lang, "history_err"), h.Err))
		for _, p := range t.events() {
			if p.Etcd != nil && p.Etcd.Key == w.Key && p.Etcd.Revision == w.PrevRevision {
				before = p.Etcd.Value
			}
		}
		if before == "" {
			return k, true
		}
	} else {
		before = string(h.Value)
	}
	l.add(v.st.Dim, 0, fmt.Sprintf(tr(v.lang, "diff_prev"), w.PrevRevision))
	v.diff(l, hunks(lineDiff(prettyJSON([]byte(before)), after), 1))
	return k, true
}

// diff adds a line diff, coloured.
func (v evidenceView) diff(l *lines, ops []diffOp) {
	for _, op := range ops {
		switch op.Kind {
		case '+':
			l.signed(v.st.Add, "+", op.Line)
		case '-':
			l.signed(v.st.Del, "-", op.Line)
		case '~':
			l.add(v.st.Dim, 0, " "+op.Line)
		default:
			l.hard(v.st.Dim, " "+op.Line)
		}
	}
}

func (v evidenceView) watch(l *lines, e flow.Event) {
	w := e.Watch
	l.add(v.st.Bold, 2, fmt.Sprintf("%s  resourceVersion %s  → %s", w.Type, w.ResourceVersion, w.User))
	l.hard(v.st.Narration, fmt.Sprintf("GET %s  %s", w.URI, w.Proto))
	l.add(v.st.Narration, 2, fmt.Sprintf("%s  frame %d bytes", w.ContentType, len(w.Frame)))
	frame := w.Frame
	printable := utf8.Valid(frame) && !strings.ContainsFunc(strings.TrimRight(string(frame), "\n"), func(r rune) bool {
		return r < 0x20 && r != '\t'
	})
	if w.Proto == "HTTP/1.1" {
		l.add(v.st.Dim, 0, flow.Text{En: "on the wire: one HTTP/1.1 chunk (size in hex, CRLF, bytes, CRLF)", Zh: "线上字节：一个 HTTP/1.1 chunk（十六进制长度、CRLF、数据、CRLF）"}.In(v.lang))
		l.add(v.st.Wire, 0, fmt.Sprintf("%x\\r\\n", len(frame)))
	} else {
		l.add(v.st.Dim, 0, flow.Text{En: fmt.Sprintf("on the wire: %d bytes in HTTP/2 DATA frames of the watch's stream", len(frame)), Zh: fmt.Sprintf("线上字节：%d 字节，放在该 watch 流的 HTTP/2 DATA 帧里", len(frame))}.In(v.lang))
	}
	if printable {
		text := strings.ReplaceAll(string(frame), "\n", "\\n")
		l.hard(v.st.Narration, text)
	} else {
		for _, ln := range hexDump(frame, v.width) {
			l.out = append(l.out, v.st.Narration.Render(ln))
		}
	}
	if w.Proto == "HTTP/1.1" {
		l.add(v.st.Wire, 0, "\\r\\n")
	}
}

// hexDump renders b as offset, hex bytes and printable characters, as
// many bytes a row as fit in width (8 or 16).
func hexDump(b []byte, width int) []string {
	n := 16
	if width < 4+2+3*16+2+16 {
		n = 8
	}
	var out []string
	for off := 0; off < len(b); off += n {
		row := b[off:min(off+n, len(b))]
		var hx, tx strings.Builder
		for i := 0; i < n; i++ {
			if i < len(row) {
				fmt.Fprintf(&hx, "%02x ", row[i])
				c := row[i]
				if c < 0x20 || c > 0x7e {
					c = '.'
				}
				tx.WriteByte(c)
			} else {
				hx.WriteString("   ")
			}
		}
		out = append(out, fmt.Sprintf("%04x  %s %s", off, hx.String(), tx.String()))
	}
	return out
}

func (v evidenceView) scheduling(l *lines, e flow.Event) {
	d := e.Scheduling
	if d.Chosen != "" {
		l.add(v.st.Bold, 2, fmt.Sprintf(flow.Text{En: "attempt %d → %s", Zh: "第 %d 次尝试 → %s"}.In(v.lang), d.Attempt, d.Chosen))
	} else {
		l.add(v.st.Fail, 2, fmt.Sprintf(flow.Text{En: "attempt %d: no node fits", Zh: "第 %d 次尝试：没有合适的节点"}.In(v.lang), d.Attempt))
	}
	if d.Message != "" {
		l.add(v.st.Warn, 2, d.Message)
	}
	nodes := append([]flow.NodeVerdict(nil), d.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	nameW, plugW := 4, 6
	for _, n := range nodes {
		nameW = max(nameW, len(n.Node))
		for _, sc := range n.Scores {
			plugW = max(plugW, len(sc.Plugin))
		}
	}
	l.add(v.st.Dim, 0, fmt.Sprintf("  %-*s  %-8s %s", nameW, "NODE", "FILTER", "SCORE"))
	for _, n := range nodes {
		mark := " "
		if n.Node == d.Chosen {
			mark = "★"
		}
		if !n.Feasible {
			l.add(v.st.Del, 4, fmt.Sprintf("%s %-*s  ✗ %s: %s", mark, nameW, n.Node, n.FailedPlugin, strings.Join(n.Reasons, ", ")))
			continue
		}
		st := v.st.Narration
		if mark == "★" {
			st = v.st.OK
		}
		l.add(st, 4, fmt.Sprintf("%s %-*s  ✓ fit    %d", mark, nameW, n.Node, n.Total))
		for _, s := range n.Scores {
			l.add(v.st.Dim, 6, fmt.Sprintf("    %-*s %-*s %3d ×%d", min(nameW, 2), "", plugW, s.Plugin, s.Score, s.Weight))
		}
	}
}

func (v evidenceView) kubelet(l *lines, e flow.Event, t0 time.Time) {
	switch {
	case e.Runtime != nil:
		r := e.Runtime
		st := v.st.Narration
		if r.Result != "ok" {
			st = v.st.Fail
		}
		what := r.Container
		if r.Image != "" {
			what += " " + r.Image
		}
		// an action is recorded when it ends: it began Duration earlier
		l.add(st, 4, fmt.Sprintf("%-8s %s %-7s %-6s %s  %s", "+"+short(e.Time.Add(-r.Duration).Sub(t0)), e.Component, r.Action, short(r.Duration), r.Result, what))
	case e.Status != nil:
		s := e.Status
		l.add(v.st.Bold, 2, fmt.Sprintf("PATCH pods/%s/status  as %s  → phase %s", e.Object.Name, s.User, s.Phase))
		l.hard(v.st.Narration, prettyJSON([]byte(s.Patch)))
	}
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

// short formats a duration for reading.
func short(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(100 * time.Microsecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// wide reports whether s has double-width characters (CJK).
func wide(s string) bool {
	return ansi.StringWidth(s) != utf8.RuneCountInString(s)
}
