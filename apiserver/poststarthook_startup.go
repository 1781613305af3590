package apiserver

import "sync"

// StartupStep names a step of Run's start.
type StartupStep string

// The steps of Run's start, in the order they happen (the hooks' steps
// interleave: each hook runs in its own goroutine).
const (
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
}

// startupObserver serializes the calls to the function OnStartup set.
type startupObserver struct {
	mu sync.Mutex
	fn func(StartupEvent)
}

// OnStartup makes Run call fn with each step of its start, one call at a
// time, from Run's goroutine or a hook's; fn must not block for long. It
// must be called before Run.
func (s *Server) OnStartup(fn func(StartupEvent)) {
	s.startup.mu.Lock()
	s.startup.fn = fn
	s.startup.mu.Unlock()
}

// report tells the OnStartup function about ev.
func (s *Server) report(ev StartupEvent) {
	s.startup.mu.Lock()
	defer s.startup.mu.Unlock()
	if s.startup.fn != nil {
		s.startup.fn(ev)
	}
}
