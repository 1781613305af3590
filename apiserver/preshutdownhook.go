package apiserver

import "sync"

// preShutdownHook is work a server does when it begins to shut down
// gracefully, while it still serves: kube-apiserver's pre-shutdown hooks
// (k8s.io/apiserver's PreShutdownHookFunc), such as the bootstrap
// controller taking this server out of the kubernetes Endpoints.
type preShutdownHook struct {
	name string
	fn   func() error
}

// preShutdownHooks holds a server's pre-shutdown hooks in registration
// order. The zero value is empty and ready to use.
type preShutdownHooks struct {
	mu    sync.Mutex
	hooks []preShutdownHook
	ran   bool
}

// AddPreShutdownHook registers fn under name, to run once when Run's
// context is done, before the server stops serving. A post-start hook may
// register one; one registered after shutdown began runs at once, since
// its post-start hook's work may already have been done. Safe for
// concurrent use.
func (s *Server) AddPreShutdownHook(name string, fn func() error) {
	h := &s.preShutdown
	h.mu.Lock()
	if !h.ran {
		h.hooks = append(h.hooks, preShutdownHook{name: name, fn: fn})
		h.mu.Unlock()
		return
	}
	h.mu.Unlock()
	s.runPreShutdownHook(preShutdownHook{name: name, fn: fn})
}

// runPreShutdownHooks runs the registered hooks one after another, in
// order, once: each bounds its own work (upstream's do too). A failure
// is logged; shutdown goes on, as kube-apiserver's does.
func (s *Server) runPreShutdownHooks() {
	h := &s.preShutdown
	h.mu.Lock()
	hooks := h.hooks
	h.hooks, h.ran = nil, true
	h.mu.Unlock()
	for _, hook := range hooks {
		s.runPreShutdownHook(hook)
	}
}

func (s *Server) runPreShutdownHook(hook preShutdownHook) {
	if err := hook.fn(); err != nil {
		s.cfg.errorLog().Printf("PreShutdownHook %q failed: %v", hook.name, err)
	}
}
