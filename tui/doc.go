// Package tui is kubesim's terminal UI: the eight stages of a pod's
// creation, live, with the evidence the running components captured.
//
// The program is a bubbletea root model (model.go) that owns a focus and
// a few child Components (pipeline, evidence, event log, cluster view),
// each with its own size and key help. Everything the cluster says reaches
// the model as messages: flow events and scenario steps through re-armed
// waitFor commands on the Session's channels, and core/v1 Events, nodes
// and pods through the TUI's own client-go watches. Only Update changes
// the model; the clock is injected so that views are deterministic.
//
// The package does not know how a cluster is started: a Driver (wired in
// main) starts scenarios and hands back a Session. The TUI reaches the
// cluster only through the Session and the Kubernetes API.
package tui
