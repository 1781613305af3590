package tui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/help"
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
	// overlayQuestion is the question the gate's step asks (question.go).
	overlayQuestion
	// overlayNodes stops and starts the nodes' kubelets (nodes.go).
	overlayNodes
)

// Model is the root model of the TUI. Build it with newModel; only
// Update changes it (Run reads it once the program has ended).
type Model struct {
	driver   Driver
	sessions *sessionOwner
	clock    func() time.Time
	// client makes the clientset of the TUI's own watches.
	client func(*rest.Config) (kubernetes.Interface, error)

	// shared is what every pane reads: styles, keys, language.
	shared *shared
	help   help.Model

	width, height int
	mode          flow.Mode
	speed         float64
	infos         []ScenarioInfo

	// the session (session.go)
	gen      int // counts the sessions started; messages carry it
	scenario ScenarioInfo
	sess     Session
	watch    *kubeWatch
	starting bool
	startErr error
	tracks   *trackSet
	step     StepUpdate
	hasStep  bool
	// nextStep is the scenario's next step while the gate holds it
	// before its action (flow.PointNextStep); nil otherwise.
	nextStep *flow.Boundary
	done     bool
	doneErr  error
	// lastDoneAt is when the latest step ended (the step tab's linger).
	lastDoneAt time.Time
	// questionShown is the step whose question overlay opened by
	// itself (once per question); questionCursor the choice ↑/↓ marks.
	questionShown  int
	questionCursor int
	// summaryDue is set when the scenario ended while the narration
	// overlay was open: closing it shows the summary.
	summaryDue bool
	// etcdHistory is etcd's history read so far (the values the etcd
	// tab diffs against); historyAsked the reads asked for.
	etcdHistory  map[historyKey]historyEntry
	historyAsked map[historyKey]bool
	walk         *walkthrough
	played       []*walkthrough
	// requestsByStep are the requests each scenario step made (by step
	// index), for the steps that create no pod of their own.
	requestsByStep map[int][]stepRequest
	// requestOf is the step each request its action made belongs to, by
	// audit ID, once the step has ended (StepUpdate.RequestIDs).
	requestOf map[string]int
	// podSteps are the steps during which a pod was admitted (stage 1):
	// their evidence is the pod's stages, not their requests.
	podSteps map[int]bool

	focus       focus
	overlay     overlay
	selected    flow.Stage
	stagePinned bool // the learner chose the stage (←/→)
	tabPinned   bool // the learner chose the tab ([/])
	lastTick    time.Time

	pipeline      *pipelinePane
	evidence      *evidencePane
	events        *eventLogPane
	cluster       *clusterPane
	picker        *pickerPane
	fullNarration *narrationPane
	nodes         *nodesPane
	// lowerLeft is the pane shown in the lower left on small screens.
	lowerLeft focus
	// firstStart starts the scenario of Options, from Init.
	firstStart tea.Cmd
	// onResize, when set, hears of every new terminal size (the
	// recording).
	onResize func(width, height int)
	// present is the presenter's mode (Options.Present, present.go);
	// narr the window on the narration it scrolls.
	present bool
	narr    narrationWindow
}

// newModel returns the root model; r renders its styles. The sessions
// it starts end with ctx.
func newModel(ctx context.Context, d Driver, opts Options, r *lipgloss.Renderer) *Model {
	lang := opts.Lang
	if lang != "zh" {
		lang = "en"
	}
	mode := opts.Mode
	if mode != flow.ModeStep {
		mode = flow.ModeAuto
	}
	clock := opts.Now
	if clock == nil {
		clock = time.Now
	}
	sh := &shared{styles: newStyles(r), keys: newKeyMap(lang), lang: lang}
	m := &Model{
		driver:         d,
		sessions:       newSessionOwner(ctx),
		clock:          clock,
		client:         newClient,
		shared:         sh,
		help:           newHelp(sh.styles),
		mode:           mode,
		speed:          opts.Speed,
		infos:          printableInfos(d.Scenarios()),
		tracks:         newTrackSet(),
		etcdHistory:    map[historyKey]historyEntry{},
		historyAsked:   map[historyKey]bool{},
		requestsByStep: map[int][]stepRequest{},
		requestOf:      map[string]int{},
		podSteps:       map[int]bool{},
		lowerLeft:      focusCluster,

		pipeline:      &pipelinePane{shared: sh},
		evidence:      &evidencePane{shared: sh},
		events:        newEventLogPane(sh),
		cluster:       &clusterPane{shared: sh},
		picker:        &pickerPane{shared: sh},
		fullNarration: &narrationPane{shared: sh},
	}
	m.nodes = &nodesPane{shared: sh, cluster: m.cluster}
	m.present = opts.Present
	m.picker.items = m.infos
	// until the terminal says its size (it does at once when it is one)
	m.width, m.height = 80, 24
	m.layout()
	m.lastTick = clock()
	m.scenario = m.info(opts.Scenario)
	if opts.Scenario == "" {
		m.overlay = overlayPicker
	} else {
		m.firstStart = m.start(opts.Scenario)
	}
	return m
}

// newClient returns the clientset of the TUI's own watches on c's
// cluster; its requests say they are the TUI's (tuiUserAgent).
func newClient(c *rest.Config) (kubernetes.Interface, error) {
	c = rest.CopyConfig(c)
	c.UserAgent = tuiUserAgent
	return kubernetes.NewForConfig(c)
}

// newHelp returns the help bar and view in st's looks.
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

// Init returns the commands that start the first scenario (unless the
// picker is open) and the clock.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(tick(), m.firstStart)
}

// Update handles a message: it hands it to what it is for, then brings
// the panes up to date (refresh). It is the only method that changes
// the model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.resize(msg)
	case tickMsg:
		m.lastTick = m.clock()
		cmds = append(cmds, tick(), m.relistKubelets())
	case sessionStartedMsg:
		cmds = append(cmds, m.sessionStarted(msg)...)
	case flowEventsMsg:
		cmds = append(cmds, m.flowEvents(msg)...)
	case stepMsg:
		cmds = append(cmds, m.stepUpdate(msg))
	case sessionDoneMsg:
		m.sessionDone(msg)
	case historyMsg:
		m.historyRead(msg)
	case kubeEventsMsg:
		cmds = append(cmds, m.kubeEvents(msg))
	case clusterMsg:
		cmds = append(cmds, m.clusterChanged(msg))
	case kubeletMsg:
		m.kubeletsListed(msg)
	case tea.KeyMsg:
		cmd, quit := m.keyPress(msg)
		if quit {
			return m, cmd
		}
		cmds = append(cmds, cmd)
	case tea.MouseMsg:
		cmds = append(cmds, m.mouse(msg))
	}
	cmds = append(cmds, m.refresh()...)
	return m, tea.Batch(cmds...)
}

// mouse hands the mouse (its wheel) to the focused pane, or to the
// narration overlay when it is open; the other overlays ignore it.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	switch m.overlay {
	case overlayNone:
		return m.focused().Update(msg)
	case overlayNarration:
		return m.fullNarration.Update(msg)
	}
	return nil
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

// nextScenario is the one after the current in the list.
func (m *Model) nextScenario() (ScenarioInfo, bool) {
	for i, it := range m.infos {
		if it.Name == m.scenario.Name && i+1 < len(m.infos) {
			return m.infos[i+1], true
		}
	}
	return ScenarioInfo{}, false
}

// focused returns the pane that has the focus.
func (m *Model) focused() Component {
	switch m.activeFocus() {
	case focusEvidence:
		return m.evidence
	case focusEvents:
		return m.events
	case focusCluster:
		return m.cluster
	}
	return m.pipeline
}

// activeFocus is the pane that gets the keys: the focused one while it
// is shown, else the evidence.
func (m *Model) activeFocus() focus {
	if m.shown(m.focus) {
		return m.focus
	}
	return focusEvidence
}

// shown reports whether pane f is on the screen: a run without pods
// shows no pipeline and no cluster view, and the event log only on wide
// screens; the pane under the pipeline is not shown when the presenter's
// narration took its rows.
func (m *Model) shown(f focus) bool {
	wide := m.width >= wideWidth
	switch {
	case f == focusEvidence || f == focusPipeline && m.podPane():
		return true
	case !m.podPane():
		return f == focusEvents && wide
	case f == focusEvents && wide:
		return true
	}
	return m.lowerShown() // the cluster view, or the event log on small screens
}

// cycleFocus moves the focus to the next pane shown (the previous when
// back).
func (m *Model) cycleFocus(back bool) {
	d := focus(1)
	if back {
		d = numFocus - 1
	}
	f := m.activeFocus()
	for range numFocus {
		if f = (f + d) % numFocus; m.shown(f) {
			break
		}
	}
	m.setFocus(f)
}

// setFocus gives f the focus; the event log and the cluster view share
// the lower left on small screens, and the one focused last is shown.
func (m *Model) setFocus(f focus) {
	m.focus = f
	if f == focusEvents || f == focusCluster {
		m.lowerLeft = f
	}
}
