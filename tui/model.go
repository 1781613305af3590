package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
)

// focus names the pane that gets the keys.
type focus int

const (
	focusPipeline focus = iota
	focusEvidence
	focusEvents
	focusCluster
	numFocus
)

// overlay is what covers the panes, if anything.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayPicker
	overlaySummary
	// overlayNarration is the current step's whole narration.
	overlayNarration
)

// Messages. Each carries the generation of the session it is about; a
// message of an older session is dropped.
type (
	sessionStartedMsg struct {
		gen  int
		sess Session
		err  error
	}
	flowEventsMsg struct {
		gen int
		evs []flow.Event
	}
	eventsClosedMsg struct{ gen int }
	stepMsg         struct {
		gen int
		up  StepUpdate
	}
	stepsClosedMsg struct{ gen int }
	sessionDoneMsg struct{ gen int }
	historyMsg     struct {
		gen   int
		key   historyKey
		entry historyEntry
	}
	kubeEventsMsg struct {
		gen int
		evs []kubeEvent
	}
	clusterMsg struct {
		gen  int
		snap clusterSnapshot
	}
	tickMsg time.Time
)

// speeds are the steps of + and -.
var speeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16}

// walkthrough is what one played session leaves for the markdown export.
type walkthrough struct {
	info   ScenarioInfo
	steps  []StepUpdate
	tracks *trackSet
	done   bool
	err    error
}

// keeper owns the sessions and watches the commands start, so that Run
// closes whatever is still open when the program ends. Driver calls go
// one at a time.
type keeper struct {
	// ctx is cancelled by closeAll: it ends the Driver calls and
	// History reads still running.
	ctx    context.Context
	cancel context.CancelFunc

	startMu  sync.Mutex
	mu       sync.Mutex
	open     map[Session]bool
	watches  map[*kubeWatch]bool
	closed   bool
	inflight sync.WaitGroup // starts running
}

func newKeeper(ctx context.Context) *keeper {
	ctx, cancel := context.WithCancel(ctx)
	return &keeper{ctx: ctx, cancel: cancel, open: map[Session]bool{}, watches: map[*kubeWatch]bool{}}
}

// begin counts a start in flight; false when the keeper is closed.
func (k *keeper) begin() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		return false
	}
	k.inflight.Add(1)
	return true
}

// add registers s; false (and s closed) when the keeper is closed.
func (k *keeper) add(s Session, w *kubeWatch) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.closed {
		w.stop()
		_ = s.Close()
		return false
	}
	k.open[s] = true
	if w != nil {
		k.watches[w] = true
	}
	return true
}

// drop stops w and closes s (either may be nil).
func (k *keeper) drop(s Session, w *kubeWatch) error {
	k.mu.Lock()
	delete(k.open, s)
	delete(k.watches, w)
	k.mu.Unlock()
	w.stop()
	if s == nil {
		return nil
	}
	return s.Close()
}

// closeAll cancels the starts in flight and waits for them, then closes
// every session and watch still open; later adds are closed at once.
func (k *keeper) closeAll() error {
	k.mu.Lock()
	k.closed = true
	k.mu.Unlock()
	k.cancel()
	k.inflight.Wait()
	k.mu.Lock()
	open, watches := k.open, k.watches
	k.open, k.watches = map[Session]bool{}, map[*kubeWatch]bool{}
	k.mu.Unlock()
	var errs []error
	for w := range watches {
		w.stop()
	}
	for s := range open {
		if err := s.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Model is the root model of the TUI. Build it with newModel; only
// Update changes it.
type Model struct {
	d      Driver
	k      *keeper
	now    func() time.Time
	client func(*rest.Config) (kubernetes.Interface, error)

	sh   *shared
	help help.Model

	width, height int
	mode          flow.Mode
	speed         float64
	infos         []ScenarioInfo

	// the session
	gen      int
	scenario ScenarioInfo
	sess     Session
	watch    *kubeWatch
	starting bool
	err      error
	tracks   *trackSet
	step     StepUpdate
	hasStep  bool
	// nextStep is the scenario's next step while the gate holds it
	// before its action (flow.PointNextStep); nil otherwise.
	nextStep *flow.Boundary
	done     bool
	doneErr  error
	// summaryDue is set when the scenario ended while the narration
	// overlay was open: closing it shows the summary.
	summaryDue bool
	hist       map[historyKey]historyEntry
	asked      map[historyKey]bool
	wt         *walkthrough
	played     []*walkthrough
	// reqs are the requests each scenario step made (by step index), for
	// the steps that create no pod of their own.
	reqs map[int][]stepRequest

	focus     focus
	overlay   overlay
	selected  flow.Stage
	pinned    bool // the learner chose the stage (←/→)
	tabPinned bool // the learner chose the tab ([/])
	nowTime   time.Time

	pipeline *pipelinePane
	evidence *evidencePane
	events   *eventLogPane
	cluster  *clusterPane
	picker   *pickerPane
	narr     *narrationPane
	// lower is the pane shown in the lower left on small screens.
	lower focus
	// first starts the scenario of Options, from Init.
	first tea.Cmd
	// onResize, when set, hears of every new terminal size (the
	// recording).
	onResize func(width, height int)
}

// newModel returns the root model; r renders its styles.
func newModel(ctx context.Context, d Driver, opts Options, r *lipgloss.Renderer) *Model {
	lang := opts.Lang
	if lang != "zh" {
		lang = "en"
	}
	mode := opts.Mode
	if mode != flow.ModeStep {
		mode = flow.ModeAuto
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	sh := &shared{st: newStyles(r), keys: newKeyMap(lang), lang: lang}
	m := &Model{
		d:   d,
		k:   newKeeper(ctx),
		now: now,
		client: func(c *rest.Config) (kubernetes.Interface, error) {
			c = rest.CopyConfig(c)
			c.UserAgent = tuiUserAgent
			return kubernetes.NewForConfig(c)
		},
		sh:     sh,
		help:   newHelp(sh.st),
		mode:   mode,
		speed:  opts.Speed,
		infos:  printableInfos(d.Scenarios()),
		tracks: newTrackSet(),
		hist:   map[historyKey]historyEntry{},
		asked:  map[historyKey]bool{},
		reqs:   map[int][]stepRequest{},
		lower:  focusCluster,

		pipeline: &pipelinePane{sh: sh},
		evidence: &evidencePane{sh: sh},
		events:   newEventLogPane(sh),
		cluster:  &clusterPane{sh: sh},
		picker:   &pickerPane{sh: sh},
		narr:     &narrationPane{sh: sh},
	}
	m.picker.items = m.infos
	// until the terminal says its size (it does at once when it is one)
	m.width, m.height = 80, 24
	m.layout()
	m.nowTime = now()
	m.scenario = m.info(opts.Scenario)
	if opts.Scenario == "" {
		m.overlay = overlayPicker
	} else {
		m.first = m.start(opts.Scenario)
	}
	return m
}

func newHelp(st Styles) help.Model {
	h := help.New()
	h.Styles.ShortKey = st.Key
	h.Styles.ShortDesc = st.Dim
	h.Styles.ShortSeparator = st.Dim
	h.Styles.FullKey = st.Key
	h.Styles.FullDesc = st.Narration
	h.Styles.FullSeparator = st.Dim
	h.Styles.Ellipsis = st.Dim
	return h
}

// info returns the ScenarioInfo of name (just the name if unknown).
func (m *Model) info(name string) ScenarioInfo {
	for _, i := range m.infos {
		if i.Name == name {
			return i
		}
	}
	return ScenarioInfo{Name: name, Title: flow.Text{En: name}}
}

// Init returns the commands that start the first scenario (unless the
// picker is open) and the clock.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.tick(), m.first)
}

func (m *Model) tick() tea.Cmd {
	return tea.Tick(time.Second, func(t time.Time) tea.Msg { return tickMsg(t) })
}

// start ends the current session (if any) and starts name on a fresh
// cluster, in a command.
func (m *Model) start(name string) tea.Cmd {
	old, oldWatch := m.sess, m.watch
	m.gen++
	gen := m.gen
	m.scenario = m.info(name)
	m.sess, m.watch, m.starting, m.err = nil, nil, true, nil
	m.tracks = newTrackSet()
	m.step, m.hasStep, m.done, m.doneErr = StepUpdate{}, false, false, nil
	m.summaryDue = false
	m.nextStep = nil
	m.hist, m.asked = map[historyKey]historyEntry{}, map[historyKey]bool{}
	m.reqs = map[int][]stepRequest{}
	m.selected, m.pinned, m.tabPinned = 0, false, false
	m.events.reset(false)
	m.cluster.snap, m.cluster.connected = clusterSnapshot{}, false
	m.wt = &walkthrough{info: m.scenario, tracks: m.tracks}
	m.played = append(m.played, m.wt)
	m.refresh()
	opts := StartOptions{Mode: m.mode, Speed: m.speed, Lang: m.sh.lang}
	d, k := m.d, m.k
	return func() tea.Msg {
		if !k.begin() {
			return nil
		}
		defer k.inflight.Done()
		ctx := k.ctx
		k.startMu.Lock()
		defer k.startMu.Unlock()
		if old != nil || oldWatch != nil {
			_ = k.drop(old, oldWatch)
		}
		s, err := d.Start(ctx, name, opts)
		if err != nil {
			return sessionStartedMsg{gen: gen, err: fmt.Errorf("start %s: %w", name, err)}
		}
		if !k.add(s, nil) {
			return nil
		}
		return sessionStartedMsg{gen: gen, sess: s}
	}
}

// waitForEvents returns the next flow events of s (those waiting, up to
// a buffer's worth), re-armed by Update after each.
func waitForEvents(gen int, s Session) tea.Cmd {
	ch := s.Events()
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return eventsClosedMsg{gen}
		}
		evs := []flow.Event{ev}
		for len(evs) < flow.DefaultBuffer {
			select {
			case ev, ok := <-ch:
				if !ok {
					return flowEventsMsg{gen, evs}
				}
				evs = append(evs, ev)
			default:
				return flowEventsMsg{gen, evs}
			}
		}
		return flowEventsMsg{gen, evs}
	}
}

func waitForStep(gen int, s Session) tea.Cmd {
	ch := s.Steps()
	return func() tea.Msg {
		up, ok := <-ch
		if !ok {
			return stepsClosedMsg{gen}
		}
		return stepMsg{gen, up}
	}
}

func waitForDone(gen int, s Session) tea.Cmd {
	return func() tea.Msg {
		<-s.Done()
		return sessionDoneMsg{gen}
	}
}

func waitForKubeEvents(gen int, w *kubeWatch) tea.Cmd {
	return func() tea.Msg {
		evs := w.nextEvents()
		if evs == nil {
			return nil
		}
		return kubeEventsMsg{gen, evs}
	}
}

func waitForCluster(gen int, w *kubeWatch) tea.Cmd {
	return func() tea.Msg {
		snap, ok := w.nextSnapshot()
		if !ok {
			return nil
		}
		return clusterMsg{gen, snap}
	}
}

func (m *Model) readHistory(k historyKey) tea.Cmd {
	s, gen, ctx := m.sess, m.gen, m.k.ctx
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		v, err := s.History(ctx, k.Key, k.Rev)
		return historyMsg{gen, k, historyEntry{Value: v, Err: err}}
	}
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		if m.onResize != nil {
			m.onResize(msg.Width, msg.Height)
		}
	case tickMsg:
		m.nowTime = m.now()
		cmds = append(cmds, m.tick())
	case sessionStartedMsg:
		if msg.gen != m.gen {
			if msg.sess != nil {
				_ = m.k.drop(msg.sess, nil)
			}
			break
		}
		m.starting = false
		if msg.err != nil {
			m.err = msg.err
			break
		}
		m.sess = msg.sess
		g := m.sess.Gate()
		g.SetMode(m.mode)
		g.SetDelay(AutoDelay(m.speed))
		cmds = append(cmds, waitForEvents(m.gen, m.sess), waitForStep(m.gen, m.sess), waitForDone(m.gen, m.sess))
		if cfg := m.sess.RESTConfig(); cfg != nil {
			if c, err := m.client(cfg); err == nil {
				m.watch = startKubeWatch(c)
				m.k.add(m.sess, m.watch)
				m.events.reset(true)
				m.cluster.connected = true
				cmds = append(cmds, waitForKubeEvents(m.gen, m.watch), waitForCluster(m.gen, m.watch))
			}
		}
	case flowEventsMsg:
		if msg.gen != m.gen {
			break
		}
		for _, e := range msg.evs {
			if h := e.Hold; h != nil && h.Boundary.Point == flow.PointNextStep {
				m.nextStep = nil
				if !h.Released {
					b := h.Boundary
					m.nextStep = &b
				}
				continue
			}
			m.tracks.add(e)
			if e.Stage == 0 && e.Request != nil && m.hasStep && scenarioRequest(e.Request) {
				m.reqs[m.step.Index] = addStepRequest(m.reqs[m.step.Index], e)
			}
			if w := e.Etcd; w != nil && e.Stage != 0 && w.PrevRevision > 0 {
				if k := (historyKey{w.Key, w.PrevRevision}); !m.asked[k] {
					m.asked[k] = true
					cmds = append(cmds, m.readHistory(k))
				}
			}
		}
		cmds = append(cmds, waitForEvents(m.gen, m.sess))
	case stepMsg:
		if msg.gen != m.gen {
			break
		}
		msg.up = printableStep(msg.up)
		if !msg.up.Done && (!m.hasStep || msg.up.Index != m.step.Index) {
			m.tracks.next = true
			m.pinned = false
		}
		m.step, m.hasStep = msg.up, true
		if msg.up.Done {
			m.wt.steps = append(m.wt.steps, msg.up)
		}
		cmds = append(cmds, waitForStep(m.gen, m.sess))
	case sessionDoneMsg:
		if msg.gen != m.gen {
			break
		}
		m.done, m.doneErr = true, printableErr(m.sess.Err())
		m.wt.done, m.wt.err = true, m.doneErr
		switch m.overlay {
		case overlayNone:
			m.overlay = overlaySummary
		case overlayNarration:
			m.summaryDue = true
		}
	case historyMsg:
		if msg.gen == m.gen {
			m.hist[msg.key] = msg.entry
		}
	case kubeEventsMsg:
		if msg.gen == m.gen {
			m.events.add(msg.evs)
			if m.watch != nil {
				m.events.dropped = m.watch.dropped.Load()
				cmds = append(cmds, waitForKubeEvents(m.gen, m.watch))
			}
		}
	case clusterMsg:
		if msg.gen == m.gen {
			m.cluster.snap = msg.snap
			if m.watch != nil {
				cmds = append(cmds, waitForCluster(m.gen, m.watch))
			}
		}
	case tea.KeyMsg:
		if cmd, quit := m.key(msg); quit {
			return m, cmd
		} else if cmd != nil {
			cmds = append(cmds, cmd)
		}
	case tea.MouseMsg:
		switch m.overlay {
		case overlayNone:
			cmds = append(cmds, m.focused().Update(msg))
		case overlayNarration:
			cmds = append(cmds, m.narr.Update(msg))
		}
	}
	cmds = append(cmds, m.refresh()...)
	return m, tea.Batch(cmds...)
}

// key handles a key press; quit is true when the program must end.
func (m *Model) key(msg tea.KeyMsg) (cmd tea.Cmd, quit bool) {
	k := m.sh.keys
	if msg.String() == "ctrl+c" {
		return tea.Quit, true
	}
	switch m.overlay {
	case overlayPicker:
		switch {
		case key.Matches(msg, k.Enter):
			if it, ok := m.picker.chosen(); ok {
				m.overlay = overlayNone
				return m.start(it.Name), false
			}
		case key.Matches(msg, k.Back), key.Matches(msg, k.Picker):
			if m.sess != nil || m.starting {
				m.overlay = overlayNone
			}
		case key.Matches(msg, k.Quit):
			return tea.Quit, true
		case key.Matches(msg, k.Lang):
			m.toggleLang()
		default:
			return m.picker.Update(msg), false
		}
		return nil, false
	case overlayHelp:
		switch {
		case key.Matches(msg, k.Quit):
			return tea.Quit, true
		case key.Matches(msg, k.Lang):
			m.toggleLang()
		default:
			m.overlay = overlayNone
		}
		return nil, false
	case overlayNarration:
		switch {
		case key.Matches(msg, k.Narration), key.Matches(msg, k.Back):
			m.overlay = overlayNone
			if m.summaryDue {
				m.overlay, m.summaryDue = overlaySummary, false
			}
			return nil, false
		case key.Matches(msg, k.Up), key.Matches(msg, k.Down), msg.String() == "pgup", msg.String() == "pgdown":
			return m.narr.Update(msg), false
		case key.Matches(msg, k.NextPane), key.Matches(msg, k.PrevPane), key.Matches(msg, k.Left),
			key.Matches(msg, k.Right), key.Matches(msg, k.PrevTab), key.Matches(msg, k.NextTab):
			// the keys of the panes close it and act on the panes
			m.overlay = overlayNone
		}
		// the others (space, p, +/-, L, ?, s, r, q) do what they always do
	case overlaySummary:
		switch {
		case key.Matches(msg, k.Enter):
			if next, ok := m.nextScenario(); ok {
				m.overlay = overlayNone
				return m.start(next.Name), false
			}
			m.overlay = overlayNone
			return nil, false
		case key.Matches(msg, k.Back):
			m.overlay = overlayNone
			return nil, false
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		return tea.Quit, true
	case key.Matches(msg, k.Help):
		m.overlay = overlayHelp
	case key.Matches(msg, k.Narration):
		m.overlay = overlayNarration
		m.narr.sc.top()
	case key.Matches(msg, k.Picker):
		m.picker.choose(m.scenario.Name)
		m.overlay = overlayPicker
	case key.Matches(msg, k.Restart):
		m.overlay = overlayNone
		return m.start(m.scenario.Name), false
	case key.Matches(msg, k.Lang):
		m.toggleLang()
	case key.Matches(msg, k.Next):
		if m.sess != nil {
			m.sess.Gate().Advance()
		}
	case key.Matches(msg, k.Mode):
		if m.mode == flow.ModeStep {
			m.mode = flow.ModeAuto
		} else {
			m.mode = flow.ModeStep
		}
		if m.sess != nil {
			m.sess.Gate().SetMode(m.mode)
		}
	case key.Matches(msg, k.Faster), key.Matches(msg, k.Slower):
		m.speed = nextSpeed(m.speed, key.Matches(msg, k.Faster))
		if m.sess != nil {
			m.sess.Gate().SetDelay(AutoDelay(m.speed))
		}
	case key.Matches(msg, k.NextPane):
		m.setFocus((m.focus + 1) % numFocus)
	case key.Matches(msg, k.PrevPane):
		m.setFocus((m.focus + numFocus - 1) % numFocus)
	case key.Matches(msg, k.Left), key.Matches(msg, k.Right):
		m.moveStage(key.Matches(msg, k.Right))
	case key.Matches(msg, k.PrevTab), key.Matches(msg, k.NextTab):
		d := tab(1)
		if key.Matches(msg, k.PrevTab) {
			d = numTabs - 1
		}
		m.evidence.tab = (m.evidence.tab + d) % numTabs
		m.tabPinned = true
	default:
		if m.focus == focusPipeline && (key.Matches(msg, k.Up) || key.Matches(msg, k.Down)) {
			m.moveStage(key.Matches(msg, k.Down))
			return nil, false
		}
		return m.focused().Update(msg), false
	}
	return nil, false
}

func (m *Model) setFocus(f focus) {
	m.focus = f
	if f == focusEvents || f == focusCluster {
		m.lower = f
	}
}

func (m *Model) toggleLang() {
	if m.sh.lang == "zh" {
		m.sh.lang = "en"
	} else {
		m.sh.lang = "zh"
	}
	m.sh.keys = newKeyMap(m.sh.lang)
}

// moveStage selects the next or the previous stage; selecting the
// current stage follows it again.
func (m *Model) moveStage(forward bool) {
	s := m.selected
	if forward {
		s = min(s+1, flow.StageStatusPersisted)
	} else {
		s = max(s-1, flow.StageAdmitted)
	}
	m.selected, m.pinned, m.tabPinned = s, true, false
	if t := m.tracks.followed(); t != nil && s == t.reached() {
		m.pinned = false
	}
}

func nextSpeed(cur float64, faster bool) float64 {
	if faster {
		for _, s := range speeds {
			if s > cur {
				return s
			}
		}
		return speeds[len(speeds)-1]
	}
	if cur == 0 {
		return speeds[len(speeds)-1]
	}
	for i := len(speeds) - 1; i >= 0; i-- {
		if speeds[i] < cur {
			return speeds[i]
		}
	}
	return speeds[0]
}

// nextScenario is the one after the current in the list.
func (m *Model) nextScenario() (ScenarioInfo, bool) {
	for i, it := range m.infos {
		if it.Name == m.scenario.Name && i+1 < len(m.infos) {
			return m.infos[i+1], true
		}
	}
	return ScenarioInfo{}, false
}

func (m *Model) focused() Component {
	switch m.focus {
	case focusEvidence:
		return m.evidence
	case focusEvents:
		return m.events
	case focusCluster:
		return m.cluster
	}
	return m.pipeline
}

// stepRequests returns the current step's requests when the evidence
// pane shows them: the step created no pod (so the pipeline still shows
// an earlier one, or none), it made requests, and the learner did not
// choose a stage with ←/→.
func (m *Model) stepRequests() []stepRequest {
	if !m.hasStep || m.pinned || !requestAction(m.step.Action) {
		return nil
	}
	rs := m.reqs[m.step.Index]
	// the events and the steps come on two channels: a request of this
	// step may have been filed under the previous one
	if f := strings.Fields(m.step.Action); len(f) >= 3 && f[0] == "http" {
		var late []stepRequest
		for _, r := range m.reqs[m.step.Index-1] {
			if r.tr.Method == f[1] && r.tr.URI == f[2] {
				late = append(late, r)
			}
		}
		rs = append(late, rs...)
	}
	for _, r := range rs {
		if _, ok := m.tracks.byUID[r.obj.UID]; ok && r.obj.UID != "" {
			return nil // the step made a pod we follow through its stages
		}
	}
	return rs
}

// requestAction reports whether a step's action (StepUpdate.Action) is
// a request to the API server: the requests of the others (adding a
// node, stopping a kubelet, a step with only expectations) are the
// runner's polls, not worth showing instead of the pod.
func requestAction(action string) bool {
	verb, _, _ := strings.Cut(action, " ")
	switch verb {
	case "create", "apply", "applyFile", "update", "delete", "patch", "http":
		return true
	}
	return false
}

// refresh brings the panes up to date with the model and returns the
// history reads the evidence needs.
func (m *Model) refresh() []tea.Cmd {
	m.layout() // the narration's height follows the step
	m.setNarration()
	t := m.tracks.followed()
	if !m.pinned {
		m.selected = flow.StageAdmitted
		if t != nil && t.reached() > 0 {
			m.selected = t.reached()
			if t.unschedulable() {
				m.selected = flow.StageScheduled // its failed attempts
			}
		}
	}
	if !m.tabPinned {
		m.evidence.tab = bestTab(t, m.selected)
	}
	m.pipeline.track, m.pipeline.selected, m.pipeline.now = t, m.selected, m.nowTime
	v := evidenceView{st: m.sh.st, lang: m.sh.lang, width: m.evidence.width, hist: m.hist}
	if rs := m.stepRequests(); rs != nil {
		// a step of its own that created no pod: its requests are the evidence
		m.evidence.setRequests(m.step.Index, v.requests(rs))
		return nil
	}
	body, need := v.render(t, m.selected, m.evidence.tab)
	m.evidence.set(m.selected, m.evidence.tab, body)
	var cmds []tea.Cmd
	for _, k := range need {
		if !m.asked[k] && m.sess != nil {
			m.asked[k] = true
			cmds = append(cmds, m.readHistory(k))
		}
	}
	return cmds
}

// setNarration gives the narration overlay the current step's whole
// narration in the current language, or the scenario's summary before
// the first step.
func (m *Model) setNarration() {
	lang := m.sh.lang
	title := m.scenario.Title.In(lang)
	if title == "" {
		title = m.scenario.Name
	}
	if !m.hasStep {
		m.narr.set(fmt.Sprintf("%d/0/%s", m.gen, lang), title,
			tr(lang, "narr_none")+"\n\n"+m.scenario.Summary.In(lang))
		return
	}
	step := fmt.Sprintf(tr(lang, "step_of"), m.step.Index, m.step.Total)
	m.narr.set(fmt.Sprintf("%d/%d/%s", m.gen, m.step.Index, lang), step+" · "+title, m.step.Narration.In(lang))
}
