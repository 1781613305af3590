package apiserver

import (
	"sync"
	"time"
)

// StartupStep names a step of Run's start.
type StartupStep string

// The steps of Run's start, in the order they happen (the hooks' steps
// interleave: each hook runs in its own goroutine).
const (
	// StartupListenerBound: NewGeneric bound the listener
	// (StartupEvent.Detail is the server's URL), as kube-apiserver's
	// options bind it while its config is built, before the chain.
	StartupListenerBound StartupStep = "listener-bound"
	// StartupServerBuilt: package serverchain built one server of the
	// delegation chain (StartupEvent.Server), in front of its delegate
	// (StartupEvent.Delegate); Detail says what it serves.
	StartupServerBuilt StartupStep = "server-built"
	// StartupCachesSynced: the watch caches and the RBAC cache have
	// loaded (kubesim waits for them before it serves; see Run).
	StartupCachesSynced StartupStep = "caches-synced"
	// StartupServing: the HTTP server accepts requests on the listener
	// New bound.
	StartupServing StartupStep = "serving"
	// StartupHookStarted, StartupHookFinished and StartupHookFailed: a
	// post-start hook (StartupEvent.Hook) began, returned nil, or failed
	// (StartupEvent.Err).
	StartupHookStarted  StartupStep = "hook-started"
	StartupHookFinished StartupStep = "hook-finished"
	StartupHookFailed   StartupStep = "hook-failed"
	// StartupReady: every post-start hook has finished, so /readyz
	// passes (if etcd answers).
	StartupReady StartupStep = "ready"
)

// StartupEvent is one step of Run's start.
type StartupEvent struct {
	Step StartupStep
	// Hook is the post-start hook's name (the Hook steps only).
	Hook string
	// Err is why the hook failed (StartupHookFailed only).
	Err error
	// Server and Delegate name a server of the chain and its delegate
	// (StartupServerBuilt only); Detail says more.
	Server, Delegate, Detail string
	// Time is when the step happened (report sets it).
	Time time.Time
}

// startupObserver serializes the calls to the function OnStartup set,
// and keeps the steps reported before it was set (those of the build).
type startupObserver struct {
	mu      sync.Mutex
	fn      func(StartupEvent)
	pending []StartupEvent
}

// OnStartup makes Run call fn with each step of its start, one call at a
// time, from Run's goroutine or a hook's; fn must not block for long.
// The steps of the server's build (NewGeneric's and serverchain's, which
// happen before the caller can call OnStartup) are passed to fn at once,
// in order. It must be called before Run.
func (s *Server) OnStartup(fn func(StartupEvent)) {
	s.startup.mu.Lock()
	defer s.startup.mu.Unlock()
	s.startup.fn = fn
	for _, ev := range s.startup.pending {
		fn(ev)
	}
	s.startup.pending = nil
}

// report tells the OnStartup function about ev, or keeps it for
// OnStartup when none is set yet.
func (s *Server) report(ev StartupEvent) {
	s.startup.mu.Lock()
	defer s.startup.mu.Unlock()
	if ev.Time.IsZero() {
		ev.Time = time.Now()
	}
	if s.startup.fn == nil {
		s.startup.pending = append(s.startup.pending, ev)
		return
	}
	s.startup.fn(ev)
}

// ReportServerBuilt reports that server, one server of the delegation
// chain, was built in front of delegate; detail says what it serves.
// Package serverchain calls it as it builds each server, in the order it
// builds them, before Run.
func (s *Server) ReportServerBuilt(server, delegate, detail string) {
	s.report(StartupEvent{Step: StartupServerBuilt, Server: server, Delegate: delegate, Detail: detail})
}
