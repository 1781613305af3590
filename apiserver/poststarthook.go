package apiserver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
)

// PostStartHookFunc is a post-start hook: work the server does once it
// serves, as kube-apiserver's post-start hooks (k8s.io/apiserver's
// server.PostStartHookFunc). Each hook runs in its own goroutine; until it
// returns nil, /readyz, /livez and /healthz report
// "[-]poststarthook/<name> failed: reason withheld" and answer 500. A hook
// must tolerate requests arriving before it has finished, and a previous
// run (a restart) having done part of its work.
//
// A hook that starts a controller running as long as the server starts
// it with ctx.Go and returns: returning is what makes the server ready.
// A hook that returns an error (or panics) stops the server: Run returns
// `PostStartHook "<name>" failed: <err>`, as kube-apiserver exits on
// it. An error returned after the server's context is done is not a
// failure.
type PostStartHookFunc func(ctx PostStartHookContext) error

// PostStartHookContext is what a post-start hook is given: a context
// cancelled when the server stops, and Go to start work that outlives the
// hook. kube-apiserver's hooks also get a loopback client configuration;
// kubesim's hooks call the server's registry directly instead (no HTTP
// request, so no authentication, authorization or admission).
type PostStartHookContext struct {
	context.Context
	goFn func(func(context.Context))
}

// Go runs fn in a goroutine owned by the server: fn's context is
// cancelled when the server stops, and Run waits for fn to return before
// it returns.
func (c PostStartHookContext) Go(fn func(ctx context.Context)) { c.goFn(fn) }

// postStartHook is one registered hook; done is closed once it has
// returned nil.
type postStartHook struct {
	name string
	fn   PostStartHookFunc
	done chan struct{}
}

// postStartHooks holds a server's hooks in registration order. The zero
// value is empty and ready to use.
type postStartHooks struct {
	mu     sync.Mutex
	hooks  []*postStartHook
	called bool
}

// AddPostStartHook registers hook under name, to run once the server
// serves, as kube-apiserver's GenericAPIServer.AddPostStartHook does: the
// name must be new and not empty, and hooks may be added until Run starts
// running them (in New, or between New and Run). Its readiness check is
// "poststarthook/<name>", listed after those added before it. The
// servers of the chain add theirs while serverchain.New builds them
// (the apiextensions server's, the aggregator's, then kube-apiserver's),
// before any a caller adds. Safe for concurrent use.
//
// For example, a controller the server runs as long as it serves:
//
//	err := s.AddPostStartHook("start-apiextensions-controllers", func(ctx apiserver.PostStartHookContext) error {
//		ctx.Go(controller.Run)
//		return nil
//	})
func (s *Server) AddPostStartHook(name string, hook PostStartHookFunc) error {
	if name == "" {
		return errors.New("missing name")
	}
	if hook == nil {
		return fmt.Errorf("hook func may not be nil: %q", name)
	}
	h := &s.hooks
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.called {
		return fmt.Errorf("unable to add %q because PostStartHooks have already been called", name)
	}
	for _, e := range h.hooks {
		if e.name == name {
			return fmt.Errorf("unable to add %q because it was already registered", name)
		}
	}
	h.hooks = append(h.hooks, &postStartHook{name: name, fn: hook, done: make(chan struct{})})
	return nil
}

// PostStartHooks returns the names of the registered hooks, in order.
func (s *Server) PostStartHooks() []string {
	s.hooks.mu.Lock()
	defer s.hooks.mu.Unlock()
	names := make([]string, len(s.hooks.hooks))
	for i, h := range s.hooks.hooks {
		names[i] = h.name
	}
	return names
}

// list returns the hooks registered so far.
func (h *postStartHooks) list() []*postStartHook {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*postStartHook(nil), h.hooks...)
}

// runPostStartHooks starts every hook in its own goroutine, added to wg,
// with ctx (cancelled when the server stops). A hook that fails sends its
// error on the returned channel (buffered: no send blocks); once every
// hook has finished, the server is ready (StartupReady is reported).
func (s *Server) runPostStartHooks(ctx context.Context, wg *sync.WaitGroup) <-chan error {
	h := &s.hooks
	h.mu.Lock()
	h.called = true
	hooks := append([]*postStartHook(nil), h.hooks...)
	h.mu.Unlock()
	failed := make(chan error, len(hooks))
	hctx := PostStartHookContext{Context: ctx, goFn: func(fn func(context.Context)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(ctx)
		}()
	}}
	remaining := &atomic.Int32{}
	remaining.Store(int32(len(hooks)))
	if len(hooks) == 0 {
		s.report(StartupEvent{Step: StartupReady})
	}
	for _, hook := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.runPostStartHook(hctx, hook, remaining); err != nil {
				failed <- err
			}
		}()
	}
	return failed
}

// runPostStartHook runs one hook, reporting its start and its end; a
// panic is its failure. On success it reports the hook finished, and the
// server ready if it was the last of remaining, before it closes the
// hook's done channel, so that every step is reported before /readyz can
// pass. It returns the failure (nil when ctx ended the hook).
func (s *Server) runPostStartHook(ctx PostStartHookContext, hook *postStartHook, remaining *atomic.Int32) (err error) {
	s.report(StartupEvent{Step: StartupHookStarted, Hook: hook.name})
	func() {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		err = hook.fn(ctx)
	}()
	switch {
	case err == nil:
		s.report(StartupEvent{Step: StartupHookFinished, Hook: hook.name})
		if remaining.Add(-1) == 0 {
			s.report(StartupEvent{Step: StartupReady})
		}
		close(hook.done)
		return nil
	case ctx.Err() != nil:
		return nil
	}
	s.report(StartupEvent{Step: StartupHookFailed, Hook: hook.name, Err: err})
	return fmt.Errorf("PostStartHook %q failed: %w", hook.name, err)
}
