package scenarios

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// printerWords are the plain printer's own words, by key; the evidence's
// words are the Layout's.
var printerWords = map[string]flow.Text{
	"step":     {En: "Step", Zh: "步骤"},
	"as":       {En: "as", Zh: "身份"},
	"via":      {En: "through API server", Zh: "经由 API Server"},
	"passed":   {En: "ok", Zh: "通过"},
	"failed":   {En: "FAILED", Zh: "失败"},
	"held":     {En: "held at", Zh: "暂停于"},
	"released": {En: "released", Zh: "继续"},
	"pod":      {En: "pod", Zh: "Pod"},
	"server":   {En: "the API server's trace of this step's requests:", Zh: "API Server 对本步骤请求的追踪："},
	"speed_0": {En: "(speed 0: this run skips every simulated delay, image pulls, container runs, back-offs, pauses; the times the narration gives are those of speed 1)",
		Zh: "（速度 0：这次运行跳过所有模拟的耗时，包括拉取镜像、容器运行、退避和停顿；旁白里说的时间都是速度 1 下的）"},
	"speed_x": {En: "(speed %g: this run divides every simulated delay by it; the times the narration gives are those of speed 1)",
		Zh: "（速度 %g：这次运行把所有模拟的耗时都除以它；旁白里说的时间都是速度 1 下的）"},
	"apply_reads": {En: "(as kubectl apply does, the action reads the object first: not found, so it creates it)",
		Zh: "（和 kubectl apply 一样，动作先读取这个对象：不存在，于是创建它）"},
}

// PlainPrinter writes a scenario as readable text: each step's narration,
// action and result, and one block per stage of each pod with the
// evidence the components captured, as a Brief flow.Layout lays it out.
// What it writes has no terminal control sequences (flow.Printable),
// whatever the cluster said. Safe for concurrent use.
type PlainPrinter struct {
	mu     sync.Mutex
	w      io.Writer
	lang   string
	layout flow.Layout
	// lastBlock is the pod and stage of the block printed last (stage 0
	// for an aside): a stage block gets its header unless it goes on
	// from the block just before it.
	lastBlock stageBlock
	// values are the last revisions of each pod key written, to show
	// what a write changed (etcd's MVCC history, as the writes happen).
	values map[string][]revision
	staged map[types.UID]bool // pods with stage events: their other writes are shown too
	// step is the step started last; expects, held and heldPods hold
	// stage blocks for the step that narrates them (print_order.go).
	step     int
	expects  map[stageKey]int
	held     map[types.UID][]heldBlock
	heldPods []types.UID
	// pending are the blocks ready to print, waiting until the step ends
	// (or the gate holds) to print in causal order; done: the scenario
	// has ended, and blocks print as they come (print_causal.go).
	pending []heldBlock
	done    bool
	// compact: the pods after the first of each owner are counted, not
	// printed (print_compact.go).
	compact compactState
	// askedElsewhere: the steps' questions and answers are left out
	// (see AskedElsewhere).
	askedElsewhere bool
	// creators and awaiting put a controller's pod's creation before its
	// stage 1 (print_controller.go).
	creators flow.Creators
	awaiting map[types.UID]int
	// shownCreations are the objects other than pods whose creator was
	// printed when its POST returned (print_controller.go).
	shownCreations map[types.UID]bool
}

// revision is one stored version of a key.
type revision struct {
	rev   int64
	value string
}

// keptRevisions bounds the revisions the printer keeps per key.
const keptRevisions = 16

// Indents of the evidence the printer writes.
const (
	stageIndent = "    " // the evidence of a pod's stage, under its header
	asideIndent = "  · " // a followed pod's event that is not a stage
)

// NewPlainPrinter returns a printer writing to w in lang ("en" or "zh").
func NewPlainPrinter(w io.Writer, lang string) *PlainPrinter {
	return &PlainPrinter{w: w, lang: lang, layout: flow.Layout{Lang: lang, Form: flow.Brief},
		values: map[string][]revision{}, staged: map[types.UID]bool{}}
}

// Speed notes, once, at what speed the run plays when it is not 1: the
// narration's times (a back-off of 10 s, a container that runs 3 s) are
// those of speed 1, and at another speed the evidence would seem to
// contradict them.
func (p *PlainPrinter) Speed(speed float64) {
	switch {
	case speed == 1:
		return
	case speed == 0:
		p.write(p.word("speed_0") + "\n")
	default:
		p.write(fmt.Sprintf(p.word("speed_x"), speed) + "\n")
	}
}

// word returns the printer's word for key in its language.
func (p *PlainPrinter) word(key string) string { return printerWords[key].In(p.lang) }

// noteWrite keeps e's value and returns the value it replaced, when the
// printer saw that one.
func (p *PlainPrinter) noteWrite(e *flow.EtcdWrite) flow.Prior {
	var prior flow.Prior
	for _, r := range p.values[e.Key] {
		if e.PrevRevision != 0 && r.rev == e.PrevRevision {
			prior = flow.Prior{Value: r.value, Known: true}
		}
	}
	if e.Op == "delete" {
		delete(p.values, e.Key)
		return prior
	}
	kept := append(p.values[e.Key], revision{e.Revision, e.Value})
	if len(kept) > keptRevisions {
		kept = kept[len(kept)-keptRevisions:]
	}
	p.values[e.Key] = kept
	return prior
}

var (
	_ Observer      = (*PlainPrinter)(nil)
	_ EventObserver = (*PlainPrinter)(nil)
)

// StepStarted prints the step's heading, narration and action.
func (p *PlainPrinter) StepStarted(s StepInfo) {
	var b strings.Builder
	title := fmt.Sprintf("%s %d/%d", p.word("step"), s.Index, s.Total)
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
			as = fmt.Sprintf("  (%s %s)", p.word("as"), s.As)
		}
		if s.Server > 1 {
			as += fmt.Sprintf("  (%s %d)", p.word("via"), s.Server)
		}
		fmt.Fprintf(&b, "$ %s%s\n", s.Action, as)
	}
	p.writeQuestion(&b, s.Question)
	p.mu.Lock()
	p.flushPending() // what came after the previous step's result
	p.mu.Unlock()
	p.write(b.String())
	p.mu.Lock()
	p.step = s.Index
	p.giveUpAwaiting()
	p.flushHeld(false)
	p.mu.Unlock()
}

// StepFinished prints what the action returned and whether the step's
// expectations held.
func (p *PlainPrinter) StepFinished(s StepInfo, r StepResult) {
	p.mu.Lock()
	p.flushPending() // the step's background, before its result
	p.mu.Unlock()
	var b strings.Builder
	for _, line := range transcriptIn(r, p.lang) {
		fmt.Fprintf(&b, "  %s\n", line)
	}
	p.writeRequests(&b, r, s.Action)
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
	p.writeAnswer(&b, s.Question, r)
	if r.Err != nil {
		fmt.Fprintf(&b, "✗ %s: %v\n", p.word("failed"), r.Err)
	} else {
		fmt.Fprintf(&b, "✓ %s\n", p.word("passed"))
		for _, line := range r.Checked {
			fmt.Fprintf(&b, "  %s\n", line.In(p.lang))
		}
	}
	p.write(b.String())
	if r.Err != nil || s.Index == s.Total {
		// No later step will print what is held, nor wait to order
		// what comes.
		p.mu.Lock()
		p.done = true
		p.flushHeld(true)
		p.flushPending()
		p.mu.Unlock()
	}
}

// Event prints a block for an event of a pod's stage (a header when the
// pod enters a new stage, then the evidence) and a line for gate holds;
// of a pod that has stage events, its failed scheduling attempts,
// container restarts and other etcd writes are printed too, as asides;
// other events are left out. While a step runs, blocks wait for its end
// to print in causal order (print_causal.go).
func (p *PlainPrinter) Event(ev flow.Event) {
	var b strings.Builder
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case ev.Controller != nil:
		p.controllerEvent(ev)
		return
	case ev.Hold != nil:
		verb := p.word("held")
		if ev.Hold.Released {
			verb = p.word("released")
		}
		// What led to the hold prints before it.
		p.flushPending()
		p.out(fmt.Sprintf("  ⏸ %s %s\n", verb, ev.Hold.Boundary))
		return
	case ev.Stage != 0:
		p.stageEvent(ev)
		return
	case (ev.Scheduling != nil || ev.Runtime != nil) && p.staged[ev.Object.UID]:
		// A followed pod's scheduling attempt that found no node, or a
		// container restart: not a stage, but part of its story.
		writeLines(&b, asideIndent, asideIndent, p.layout.Event(ev, flow.Context{}))
	case ev.Etcd != nil:
		prior := p.noteWrite(ev.Etcd)
		if !p.staged[ev.Object.UID] {
			return
		}
		// Another write of a pod this run follows: not a stage, but one
		// more revision in etcd, and every watcher hears of it.
		writeLines(&b, asideIndent, stageIndent, p.layout.Revision(ev.Etcd, prior))
	default:
		return
	}
	h := heldBlock{pod: ev.Object, text: b.String(), at: ev.Time, rev: etcdRevision(ev)}
	if step := p.holdFor(ev.Object, 0); step > 0 || p.awaits(ev.Object.UID) {
		h.step = step
		p.hold(h)
		return
	}
	p.emit(h)
}

// stageEvent lays out the event of a pod's stage, held for the step
// that narrates it or ready to print. The caller holds p.mu.
func (p *PlainPrinter) stageEvent(ev flow.Event) {
	if _, ok := ev.Stage.Info(); !ok {
		return
	}
	p.staged[ev.Object.UID] = true
	p.noteCreated(ev)
	var c flow.Context
	if ev.Etcd != nil {
		c.Prior = p.noteWrite(ev.Etcd)
	}
	var lines strings.Builder
	writeLines(&lines, stageIndent, stageIndent, p.layout.Event(ev, c))
	h := heldBlock{stage: ev.Stage, pod: ev.Object, text: lines.String(), at: ev.Time, rev: etcdRevision(ev)}
	if step := p.holdFor(ev.Object, ev.Stage); step > 0 || p.awaits(ev.Object.UID) {
		h.step = step
		p.hold(h)
		return
	}
	p.emit(h)
}

// stageHeader writes "[N/8] Title — pod NAME" unless the block printed
// just before was of the same pod and stage (after step text, or another
// pod's block, a stage gets its header again). The caller holds p.mu.
func (p *PlainPrinter) stageHeader(b *strings.Builder, pod flow.ObjectRef, stage flow.Stage) {
	info, _ := stage.Info()
	if p.lastBlock == (stageBlock{pod.UID, stage}) {
		return
	}
	p.lastBlock = stageBlock{pod.UID, stage}
	fmt.Fprintf(b, "\n[%d/%d] %s — %s %s\n", int(stage), len(flow.Stages), info.Title.In(p.lang),
		p.word("pod"), nsName(pod.Namespace, pod.Name))
}

// writeLines writes laid-out lines, the first after first, the others
// after rest.
func writeLines(b *strings.Builder, first, rest string, lines []flow.Line) {
	for i, l := range lines {
		if i == 0 {
			b.WriteString(first)
		} else {
			b.WriteString(rest)
		}
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
}

func (p *PlainPrinter) write(s string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// After step text, a stage's evidence gets its header again, so it is
	// never read as part of the step printed in between.
	p.lastBlock = stageBlock{}
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

// writeRequests writes the API server's side of the step's requests: for
// an http step, whose lesson is the request itself, each trace in full
// (the nine steps, go-restful's dispatch); for other actions one line per
// request, as the stage blocks already show a pod create's trace (and,
// in compact output, for every action but http).
func (p *PlainPrinter) writeRequests(b *strings.Builder, r StepResult, action string) {
	if len(r.Requests) == 0 {
		return
	}
	apply := strings.HasPrefix(action, "apply")
	steps := len(r.HTTP) > 0 && (!p.compactOn() || strings.HasPrefix(action, "http "))
	fmt.Fprintf(b, "  %s\n", p.word("server"))
	for _, t := range r.Requests {
		writeLines(b, stageIndent, stageIndent, p.layout.RequestSummary(t, steps))
		if apply && t.Method == "GET" && t.Code == http.StatusNotFound {
			fmt.Fprintf(b, "%s  %s\n", stageIndent, p.word("apply_reads"))
		}
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
	Evidence  any                  `json:"evidence,omitempty"`
	Question  *jsonQuestion        `json:"question,omitempty"`
	Answer    *jsonAnswer          `json:"answer,omitempty"`
	Checked   []flow.Text          `json:"checked,omitempty"`
	Error     string               `json:"error,omitempty"`
}

type jsonEvent struct {
	Type  string     `json:"type"`
	Event flow.Event `json:"event"`
}

func stepJSON(s StepInfo, phase string) jsonStep {
	return jsonStep{Type: "step", Phase: phase, Index: s.Index, Total: s.Total, ID: s.ID, Narration: s.Narration, As: s.As, Action: s.Action}
}

// StepStarted writes {"type":"step","phase":"started",...}, with the
// step's question if it has one.
func (p *JSONPrinter) StepStarted(s StepInfo) {
	j := stepJSON(s, "started")
	j.Question = questionJSON(s.Question)
	p.encode(j)
}

// StepFinished writes {"type":"step","phase":"passed"|"failed",...} with
// the action's result and, for a step with a question, the answer.
func (p *JSONPrinter) StepFinished(s StepInfo, r StepResult) {
	j := stepJSON(s, "passed")
	j.Status, j.Message, j.Watch, j.HTTP, j.Requests, j.Evidence = r.Status, r.Message, r.Watch, r.HTTP, r.Requests, r.Evidence
	j.Answer = answerJSON(s.Question, r)
	j.Checked = r.Checked
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
