package apiserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// Server is a running API server. New binds its listener; Run serves.
type Server struct {
	cfg     *Config
	reg     *registry.Registry
	groups  []*group
	openapi *openapi.Handler
	handler http.Handler
	ln      net.Listener
	// namespaces answers the namespace check of every create.
	namespaces *registry.NamespaceCache
}

// New builds the server on cfg and binds its listener, so URL is known
// before Run. The caller must Run or Close it.
func New(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg, err := registry.New(registry.StoreConfig{Client: cfg.Etcd, BookmarkInterval: cfg.BookmarkInterval})
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, reg: reg, groups: buildGroups(reg), namespaces: registry.NewNamespaceCache(reg.Namespaces)}
	if s.openapi, err = openapi.New(s.openAPIResources()); err != nil {
		return nil, fmt.Errorf("apiserver: openapi: %w", err)
	}
	s.handler = s.buildHandlerChain(s.buildContainer())
	addr := net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.Port))
	if s.ln, err = net.Listen("tcp", addr); err != nil {
		return nil, fmt.Errorf("apiserver: listen on %s: %w", addr, err)
	}
	return s, nil
}

// URL is the server's base URL, e.g. http://127.0.0.1:6443.
func (s *Server) URL() string { return "http://" + s.ln.Addr().String() }

// Handler returns the full handler chain (for tests with httptest).
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the stores behind the API.
func (s *Server) Registry() *registry.Registry { return s.reg }

// Close releases the listener of a server that will not Run.
func (s *Server) Close() error { return s.ln.Close() }

// shutdownGrace bounds how long Run waits for requests in flight at exit.
const shutdownGrace = 5 * time.Second

// Run creates the bootstrap namespaces, starts the namespace finalizer and
// serves until ctx is done, then ends every request (watches included)
// and returns. It returns early with an error if it cannot start.
func (s *Server) Run(ctx context.Context) error {
	if err := s.reg.Bootstrap(ctx); err != nil {
		s.ln.Close()
		return fmt.Errorf("apiserver: bootstrap: %w", err)
	}
	// Requests derive their context from this one: cancelling it ends
	// long-running watches, which Shutdown alone would wait for forever.
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := &http.Server{
		Handler:           s.handler,
		ErrorLog:          s.cfg.errorLog(),
		ReadHeaderTimeout: 30 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	ctrlCtx, stopCtrl := context.WithCancel(ctx)
	defer stopCtrl()
	wg.Add(2)
	go func() {
		defer wg.Done()
		s.namespaces.Run(ctrlCtx)
	}()
	go func() {
		defer wg.Done()
		c := &registry.NamespaceController{Namespaces: s.reg.Namespaces, Content: s.reg.NamespacedContent(), Resync: s.cfg.NamespaceResync}
		c.Run(ctrlCtx)
	}()

	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(s.ln) }()
	select {
	case err := <-serveErr:
		return fmt.Errorf("apiserver: %w", err)
	case <-ctx.Done():
	}
	cancelRequests()
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(shutCtx); err != nil {
		srv.Close()
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("apiserver: %w", err)
	}
	return nil
}
