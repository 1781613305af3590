package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// words are the printer's own words, by language.
var words = map[string]map[string]string{
	"en": {"step": "Step", "as": "as", "passed": "ok", "failed": "FAILED", "held": "held at", "released": "released", "pod": "pod",
		"server": "the API server's trace of this step's requests:", "noroute": "no route",
		"changes": "changed since revision %d:", "more": "… and %d more", "revision": "revision %d (previous %d)"},
	"zh": {"step": "步骤", "as": "身份", "passed": "通过", "failed": "失败", "held": "暂停于", "released": "继续", "pod": "Pod",
		"server": "API Server 对本步骤请求的追踪：", "noroute": "未匹配路由",
		"changes": "相对 revision %d 的变化：", "more": "… 另有 %d 处", "revision": "revision %d（上一个 %d）"},
}

func word(lang, key string) string {
	if w, ok := words[lang]; ok {
		return w[key]
	}
	return words["en"][key]
}

// PlainPrinter writes a scenario as readable text: each step's narration,
// action and result, and one block per stage of each pod with the
// evidence the components captured. What it writes has no terminal
// control sequences (flow.Printable), whatever the cluster said. Safe for
// concurrent use.
type PlainPrinter struct {
	mu   sync.Mutex
	w    io.Writer
	lang string
	last map[types.UID]flow.Stage // the stage whose header was printed last, per pod
	// values are the last revisions of each pod key written, to show
	// what a write changed (etcd's MVCC history, as the writes happen).
	values map[string][]revision
	staged map[types.UID]bool // pods with stage events: their other writes are shown too
}

// revision is one stored version of a key.
type revision struct {
	rev   int64
	value string
}

// keptRevisions bounds the revisions the printer keeps per key.
const keptRevisions = 16

// maxChanges bounds the changed fields printed for one write.
const maxChanges = 12

// NewPlainPrinter returns a printer writing to w in lang ("en" or "zh").
func NewPlainPrinter(w io.Writer, lang string) *PlainPrinter {
	return &PlainPrinter{w: w, lang: lang, last: map[types.UID]flow.Stage{},
		values: map[string][]revision{}, staged: map[types.UID]bool{}}
}

// noteWrite keeps e's value and returns what changed since its previous
// revision, when the printer saw that one.
func (p *PlainPrinter) noteWrite(e *flow.EtcdWrite) []flow.FieldChange {
	var changes []flow.FieldChange
	for _, r := range p.values[e.Key] {
		if e.PrevRevision != 0 && r.rev == e.PrevRevision {
			changes, _ = flow.DiffFields([]byte(r.value), []byte(e.Value))
		}
	}
	if e.Op == "delete" {
		delete(p.values, e.Key)
		return changes
	}
	kept := append(p.values[e.Key], revision{e.Revision, e.Value})
	if len(kept) > keptRevisions {
		kept = kept[len(kept)-keptRevisions:]
	}
	p.values[e.Key] = kept
	return changes
}

// keyField reports the fields that tell a pod's story: where it runs, its
// phase, its deletion, its labels.
func keyField(path string) bool {
	switch path {
	case "spec.nodeName", "status.phase", "status.podIP", "metadata.deletionTimestamp", "metadata.deletionGracePeriodSeconds", "metadata.labels":
		return true
	}
	return strings.HasPrefix(path, "metadata.labels.")
}

// writeChanges writes a write's changed fields, at most maxChanges.
func writeChanges(b *strings.Builder, lang string, prev int64, changes []flow.FieldChange) {
	var shown []flow.FieldChange
	for _, c := range changes {
		if c.Path == "metadata.resourceVersion" || strings.HasPrefix(c.Path, "metadata.managedFields") {
			continue
		}
		shown = append(shown, c)
	}
	if len(shown) == 0 {
		return
	}
	// What a learner looks for first comes first; the rest by path.
	sort.SliceStable(shown, func(i, j int) bool { return keyField(shown[i].Path) && !keyField(shown[j].Path) })
	fmt.Fprintf(b, "    %s\n", fmt.Sprintf(word(lang, "changes"), prev))
	for i, c := range shown {
		if i == maxChanges {
			fmt.Fprintf(b, "      "+word(lang, "more")+"\n", len(shown)-maxChanges)
			break
		}
		fmt.Fprintf(b, "      %s\n", truncate(c.String(), 150))
	}
}

var (
	_ Observer      = (*PlainPrinter)(nil)
	_ EventObserver = (*PlainPrinter)(nil)
)

// StepStarted prints the step's heading, narration and action.
func (p *PlainPrinter) StepStarted(s StepInfo) {
	var b strings.Builder
	title := fmt.Sprintf("%s %d/%d", word(p.lang, "step"), s.Index, s.Total)
	if s.ID != "" {
		title += " · " + s.ID
	}
	fmt.Fprintf(&b, "\n=== %s ===\n", title)
	for _, line := range strings.Split(s.Narration.In(p.lang), "\n") {
		fmt.Fprintf(&b, "%s\n", line)
	}
	if s.Action != "" {
		as := ""
		if s.As != "" && s.As != DefaultUser {
			as = fmt.Sprintf("  (%s %s)", word(p.lang, "as"), s.As)
		}
		fmt.Fprintf(&b, "$ %s%s\n", s.Action, as)
	}
	p.write(b.String())
}

// StepFinished prints what the action returned and whether the step's
// expectations held.
func (p *PlainPrinter) StepFinished(s StepInfo, r StepResult) {
	var b strings.Builder
	for _, line := range r.HTTP {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	writeRequests(&b, p.lang, r)
	switch {
	case r.Status != 0 && r.Message != "" && len(r.HTTP) == 0:
		fmt.Fprintf(&b, "→ %d %s\n", r.Status, truncate(oneLine(r.Message), 200))
	case r.Status != 0:
		fmt.Fprintf(&b, "→ %d\n", r.Status)
	case r.Message != "":
		fmt.Fprintf(&b, "→ %s\n", truncate(oneLine(r.Message), 200))
	}
	if len(r.Watch) > 0 {
		fmt.Fprintf(&b, "→ watch events: %s\n", strings.Join(r.Watch, ", "))
	}
	if r.Err != nil {
		fmt.Fprintf(&b, "✗ %s: %v\n", word(p.lang, "failed"), r.Err)
	} else {
		fmt.Fprintf(&b, "✓ %s\n", word(p.lang, "passed"))
	}
	p.write(b.String())
}

// Event prints a block for an event of a pod's stage (a header when the
// pod enters a new stage, then the evidence) and a line for gate holds;
// other events are left out.
func (p *PlainPrinter) Event(ev flow.Event) {
	var b strings.Builder
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case ev.Hold != nil:
		verb := word(p.lang, "held")
		if ev.Hold.Released {
			verb = word(p.lang, "released")
		}
		fmt.Fprintf(&b, "  ⏸ %s %s\n", verb, ev.Hold.Boundary)
	case ev.Stage != 0:
		info, ok := ev.Stage.Info()
		if !ok {
			return
		}
		if p.last[ev.Object.UID] != ev.Stage {
			p.last[ev.Object.UID] = ev.Stage
			fmt.Fprintf(&b, "\n[%d/%d] %s — %s %s\n", int(ev.Stage), len(flow.Stages), info.Title.In(p.lang),
				word(p.lang, "pod"), nsName(ev.Object.Namespace, ev.Object.Name))
		}
		p.staged[ev.Object.UID] = true
		writeEvidence(&b, "    ", ev)
		if ev.Etcd != nil {
			writeChanges(&b, p.lang, ev.Etcd.PrevRevision, p.noteWrite(ev.Etcd))
		}
	case (ev.Scheduling != nil || ev.Runtime != nil) && p.staged[ev.Object.UID]:
		// A followed pod's scheduling attempt that found no node, or a
		// container restart: not a stage, but part of its story.
		writeEvidence(&b, "  · ", ev)
	case ev.Etcd != nil:
		changes := p.noteWrite(ev.Etcd)
		if !p.staged[ev.Object.UID] {
			return
		}
		// Another write of a pod this run follows: not a stage, but one
		// more revision in etcd, and every watcher hears of it.
		e := ev.Etcd
		fmt.Fprintf(&b, "  · etcd %s %s, %s\n", e.Op, e.Key, fmt.Sprintf(word(p.lang, "revision"), e.Revision, e.PrevRevision))
		writeChanges(&b, p.lang, e.PrevRevision, changes)
	default:
		return
	}
	p.out(b.String())
}

func (p *PlainPrinter) write(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// After step text, a stage's evidence gets its header again, so it is
	// never read as part of the step printed in between.
	clear(p.last)
	p.out(s)
}

// out writes s without terminal control sequences: much of what the
// printer shows comes from the cluster (Event messages, error messages,
// response bodies, object names in URIs), where anyone allowed to write
// could have put an escape sequence. The caller holds p.mu.
func (p *PlainPrinter) out(s string) {
	_, _ = io.WriteString(p.w, flow.Printable(s))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// short rounds a duration for reading.
func short(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// writeRequests writes the API server's side of the step's requests: for
// an http step, whose lesson is the request itself, each trace in full
// (the nine steps, go-restful's dispatch); for other actions one line per
// request, as the stage blocks already show a pod create's trace.
func writeRequests(b *strings.Builder, lang string, r StepResult) {
	if len(r.Requests) == 0 {
		return
	}
	fmt.Fprintf(b, "  %s\n", word(lang, "server"))
	for _, t := range r.Requests {
		route := t.Route
		if route == "" {
			route = word(lang, "noroute")
		}
		user := t.User
		if user == "" {
			user = "(unauthenticated)"
		}
		fmt.Fprintf(b, "    %s %s → %d  (%s %s, %s, %s)\n", t.Method, truncate(t.URI, 100), t.Code, word(lang, "as"), user, route, short(t.Duration))
		if len(r.HTTP) == 0 {
			continue
		}
		for _, s := range t.Steps {
			fmt.Fprintf(b, "      %9s  %-13s %-9s %s\n", "+"+short(s.At).String(), s.Name, s.Outcome, truncate(s.Detail, 140))
		}
	}
}

// writeEvidence writes the evidence lines of ev, each after indent.
func writeEvidence(b *strings.Builder, indent string, ev flow.Event) {
	line := func(format string, args ...any) {
		b.WriteString(indent)
		fmt.Fprintf(b, format+"\n", args...)
	}
	switch {
	case ev.Request != nil:
		r := ev.Request
		line("%s %s  %s  (%s)", r.Method, r.URI, r.Proto, ev.Component)
		user := r.User
		if user == "" {
			user = "(unauthenticated)"
		}
		if len(r.Groups) > 0 {
			user += " [" + strings.Join(r.Groups, ", ") + "]"
		}
		line("user   %s", user)
		if r.Route != "" {
			line("route  %s", r.Route)
		}
		for _, s := range r.Steps {
			line("  %9s  %-13s %-9s %s", "+"+short(s.At).String(), s.Name, s.Outcome, truncate(s.Detail, 140))
		}
		if r.Code != 0 {
			line("→ %d, %d bytes in %s", r.Code, r.BytesSent, short(r.Duration))
		}
	case ev.Etcd != nil:
		e := ev.Etcd
		prev := ""
		if e.PrevRevision != 0 {
			prev = fmt.Sprintf(" (previous revision %d)", e.PrevRevision)
		}
		line("etcd %s %s", e.Op, e.Key)
		line("revision %d%s = resourceVersion \"%d\"", e.Revision, prev, e.Revision)
		if e.Value != "" {
			line("value %d bytes: %s", len(e.Value), preview([]byte(e.Value)))
		}
	case ev.Watch != nil:
		w := ev.Watch
		line("watch event %s, resourceVersion %s", w.Type, w.ResourceVersion)
		line("to %s on GET %s (%s, %s)", w.User, w.URI, w.Proto, w.ContentType)
		line("frame %d bytes: %s", len(w.Frame), preview(w.Frame))
	case ev.Scheduling != nil:
		writeSchedulingTable(line, ev.Scheduling)
	case ev.Runtime != nil:
		r := ev.Runtime
		what := r.Container
		if r.Image != "" {
			what += " (" + r.Image + ")"
		}
		line("runtime %-6s %s  %s  %s  [%s]", r.Action, what, short(r.Duration), r.Result, ev.Component)
	case ev.Status != nil:
		s := ev.Status
		line("PATCH pods/status as %s: phase %s", s.User, s.Phase)
		line("patch %d bytes: %s", len(s.Patch), truncate(oneLine(s.Patch), 200))
	default:
		if ev.Summary != "" {
			line("%s  (%s)", ev.Summary, ev.Component)
		}
	}
}

// writeSchedulingTable writes the scheduler's verdict per node: filter
// result, scores, total, and which node was chosen.
func writeSchedulingTable(line func(string, ...any), d *flow.SchedulingDecision) {
	nodesWord := "nodes"
	if len(d.Nodes) == 1 {
		nodesWord = "node"
	}
	line("scheduling attempt %d: %d %s", d.Attempt, len(d.Nodes), nodesWord)
	feasible := 0
	for _, n := range d.Nodes {
		if n.Feasible {
			feasible++
		}
	}
	nodes := append([]flow.NodeVerdict(nil), d.Nodes...)
	sort.SliceStable(nodes, func(i, j int) bool { return nodes[i].Node < nodes[j].Node })
	for _, n := range nodes {
		mark := " "
		if n.Node == d.Chosen {
			mark = "*"
		}
		if !n.Feasible {
			line("%s %-12s filtered out by %s: %s", mark, n.Node, n.FailedPlugin, strings.Join(n.Reasons, "; "))
			continue
		}
		if feasible == 1 && len(n.Scores) == 0 {
			// As kube-scheduler does, a lone feasible node is not scored.
			line("%s %-12s fits; the only node that does, so scoring is skipped", mark, n.Node)
			continue
		}
		var scores []string
		for _, s := range n.Scores {
			scores = append(scores, fmt.Sprintf("%s %d×%d", s.Plugin, s.Score, s.Weight))
		}
		line("%s %-12s fits; total %d = %s", mark, n.Node, n.Total, strings.Join(scores, " + "))
	}
	if d.Chosen != "" {
		line("chosen: %s", d.Chosen)
	} else if d.Message != "" {
		line("no node fits: %s", d.Message)
	}
}

// JSONPrinter writes one JSON object per line: {"type":"step",...} when a
// step starts and when it finishes, {"type":"event","event":{...}} for
// every flow event. Safe for concurrent use.
type JSONPrinter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

// NewJSONPrinter returns a printer writing to w.
func NewJSONPrinter(w io.Writer) *JSONPrinter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &JSONPrinter{enc: enc}
}

var (
	_ Observer      = (*JSONPrinter)(nil)
	_ EventObserver = (*JSONPrinter)(nil)
)

// jsonStep is the JSON form of a step's start ("started") or end
// ("passed", "failed").
type jsonStep struct {
	Type      string               `json:"type"`
	Phase     string               `json:"phase"`
	Index     int                  `json:"index"`
	Total     int                  `json:"total"`
	ID        string               `json:"id,omitempty"`
	Narration flow.Text            `json:"narration"`
	As        string               `json:"as,omitempty"`
	Action    string               `json:"action,omitempty"`
	Status    int                  `json:"status,omitempty"`
	Message   string               `json:"message,omitempty"`
	Watch     []string             `json:"watch,omitempty"`
	HTTP      []string             `json:"http,omitempty"`
	Requests  []*flow.RequestTrace `json:"requests,omitempty"`
	Error     string               `json:"error,omitempty"`
}

type jsonEvent struct {
	Type  string     `json:"type"`
	Event flow.Event `json:"event"`
}

func stepJSON(s StepInfo, phase string) jsonStep {
	return jsonStep{Type: "step", Phase: phase, Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, As: s.As, Action: s.Action}
}

// StepStarted writes {"type":"step","phase":"started",...}.
func (p *JSONPrinter) StepStarted(s StepInfo) { p.encode(stepJSON(s, "started")) }

// StepFinished writes {"type":"step","phase":"passed"|"failed",...} with
// the action's result.
func (p *JSONPrinter) StepFinished(s StepInfo, r StepResult) {
	j := stepJSON(s, "passed")
	j.Status, j.Message, j.Watch, j.HTTP, j.Requests = r.Status, r.Message, r.Watch, r.HTTP, r.Requests
	if r.Err != nil {
		j.Phase, j.Error = "failed", r.Err.Error()
	}
	p.encode(j)
}

// Event writes {"type":"event","event":{...}}.
func (p *JSONPrinter) Event(ev flow.Event) { p.encode(jsonEvent{Type: "event", Event: ev}) }

func (p *JSONPrinter) encode(v any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.enc.Encode(v)
}
