// Package tui is kubesim's terminal UI: the eight stages of a pod's
// creation, live, with the evidence the running components captured.
//
// Run is the entry point. It does not know how a cluster is started: a
// Driver (wired in main) starts each scenario on a fresh cluster and
// hands back a Session. The TUI reaches the cluster only through the
// Session and the Kubernetes API (its own client-go watches), never
// through a component's package. Every session Run starts is closed
// before it returns; nothing but the program's screen is written to the
// terminal.
//
// The program is a bubbletea root model, Model, with a focus (the pane
// that gets the keys), an overlay (help, picker, summary, the step's
// whole narration, the question asked at the gate) and child Components (pipeline, evidence, event log,
// cluster view, picker, narration), each with its own size and key help;
// styles, keys and language are shared. Everything the cluster says
// reaches the model as a message: flow events, scenario steps and the
// scenario's end through waitFor commands on the Session's channels,
// etcd's history through a read, core/v1 Events, nodes and pods through
// the TUI's watches. Update re-arms each waitFor command after its
// message, so after newModel only Update changes the model (Run reads it
// once the program has ended). Each message carries the generation of
// the session it is about: one from a session since replaced changes
// nothing. The clock is injected (Options.Now), so views are
// deterministic.
//
// The files, by what they hold:
//   - run.go, driver.go: Run and Options; the Driver and Session the TUI
//     plays through.
//   - model.go: the root model, its focus and overlays, newModel, Init
//     and Update, which hands each message to its handler.
//   - messages.go: the message types.
//   - session.go: starting a session and the handlers of its messages.
//   - commands.go: the commands that wait for the session, the watches,
//     etcd's history and the clock.
//   - sessionowner.go: sessionOwner, which owns the sessions and watches
//     the commands start, so that Run can close them.
//   - keypress.go, keymap.go: what each key does, per overlay; the key
//     bindings and their help.
//   - refresh.go: bringing the panes up to date after each message.
//   - layout.go, view.go, summary.go: the sizes of the screen's parts;
//     drawing the screen; the end-of-scenario summary.
//   - component.go, scroll.go, styles.go, i18n.go: the Component
//     interface and what the panes share; the scroll window; the styles;
//     the TUI's words in both languages.
//   - pipeline.go, evidencepane.go, eventlog.go, clusterview.go,
//     picker.go, narration.go: one pane each.
//   - question.go: a step's question asked at the gate (its overlay and
//     keys), the verdict on the answer and the score.
//   - steptab.go: the step tab, a scenario step's own evidence (action,
//     result, question, transcript), and when it opens by itself.
//   - track.go: the stages of the pods followed; evidence.go: which
//     evidence a stage's tab shows, laid out by a Full flow.Layout;
//     evidencelines.go: those lines fitted to the pane and styled;
//     markdown.go: the walkthrough export (the same lines, unstyled);
//     kubewatch.go: the TUI's own watches; cast.go: the asciicast
//     recording; printable.go: the Driver's texts made safe for the
//     terminal.
package tui
