// Package web is kubesim's web view: a page that draws a lesson as a live
// sequence diagram, for a teacher at a projector and a class following in
// their browsers.
//
// A Server plays a lesson through the same tui.Driver the terminal UI
// uses (a fresh cluster per start, or a replayed recording) and turns the
// session's flow events into arrows between lifelines (client, API
// server, etcd, scheduler, controllers, each node's kubelet). Every page
// follows one event stream (Server-Sent Events, /api/events) that a
// log of the lesson backs: a page that connects late, or reconnects,
// gets the whole lesson so far, and a slow page only falls behind in the
// log; nobody waits for it. The evidence of an arrow is laid out by
// internal/flow's Layout, the same lines the terminal UI shows, when a
// page asks for it (/api/evidence/ID).
//
// The teacher's page carries a secret (the key printed at start): only
// requests with it may drive the cluster's gate (next, auto/step, speed,
// language, restart, reveal). Any other page is read-only; it may answer
// a step's question, and the teacher's page shows the tally.
//
// The page itself (assets/) is embedded in the binary.
package web
