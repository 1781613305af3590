package apiserver

import (
	"context"
	"errors"
	"fmt"
	"log"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	restful "github.com/emicklei/go-restful/v3"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/filters"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/h2drain"
)

// Server is a running API server. New binds its listener; Run serves.
type Server struct {
	// crashed makes the next stop a crash's (Crash).
	crashed atomic.Bool
	cfg     *Config
	reg     *registry.Registry
	groups  []*Group
	openapi *openapi.Handler
	handler http.Handler
	ln      net.Listener
	// hooks are the post-start hooks; startup is told Run's steps.
	hooks   postStartHooks
	startup startupObserver
	// preShutdown runs when shutdown begins (preshutdownhook.go);
	// shutdownInitiated is closed then, and fails readyz's shutdown check.
	preShutdown       preShutdownHooks
	shutdownInitiated chan struct{}
	// namespaces answers the namespace check of every create, accounts
	// the service account admission of every pod create.
	namespaces *registry.NamespaceCache
	accounts   *registry.ServiceAccountCache
	// priorities are the PriorityClasses the Priority admission reads.
	priorities *registry.PriorityClassCache
	// rbac feeds the RBAC authorizer; authorizer is Node then RBAC.
	rbac       *registry.RBACCache
	authorizer auth.Authorizer
	// authn is the configured authenticator, then service account
	// tokens signed by tokens.
	authn    auth.Authenticator
	tokens   *auth.TokenIssuer
	auditLog *audit.Log
	// admission runs inside write handlers, just before storage;
	// admissionInformers feed its LimitRanger and ResourceQuota.
	admission          *admission.Chain
	admissionInformers *admissionInformers
	// tracker follows the creation of the pods created through this
	// server, stage by stage.
	tracker serverStages
	// writes remembers the recent etcd writes, for the evidence of a
	// pod's write (which keys took the revisions since its previous one).
	writes writeLog
	// container is kube-apiserver's go-restful Container, the one that
	// serves the built-in groups (InstallAPIGroups sets it).
	container *restful.Container
	// extensions and registration are the groups of the apiextensions
	// server and of the aggregator.
	extensions, registration *Group
	// healthExtra are checks the servers of the chain add to the health
	// endpoints (AddHealthCheck); onShutdown runs once the HTTP server has
	// stopped (OnShutdown).
	healthExtra []HealthCheck
	onShutdown  []func()
	// chain are the servers of the delegation chain (InstallChain).
	chain []http.Handler
	// drainer ends HTTP/2 connections at shutdown once they are done.
	drainer *h2drain.Drainer
	// inflight counts the requests in flight for /metrics.
	inflight *filters.Inflight
}

// NewGeneric builds the generic part of the server on cfg (the stores,
// the caches, the authenticators and authorizers, admission, the groups'
// layout) and binds its listener, so URL is known before Run. It serves
// nothing until InstallChain: package serverchain's New builds the servers
// of the delegation chain on it and installs them, and is what callers
// use. The caller must Run or Close it.
func NewGeneric(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	stages := cfg.PodStages
	if stages == nil {
		stages = NewPodStages()
	}
	registerAPIServerMetrics()
	s := &Server{cfg: cfg, tracker: serverStages{stages.t, cfg.Recorder}, drainer: h2drain.New(), inflight: &filters.Inflight{}, shutdownInitiated: make(chan struct{})}
	reg, err := registry.New(registry.StoreConfig{Client: cfg.Etcd, BookmarkInterval: cfg.BookmarkInterval, WatchCache: cfg.WatchCache, OnWrite: s.observeWrite,
		StorageMediaType: cfg.StorageMediaType})
	if err != nil {
		return nil, err
	}
	s.reg, s.groups, s.namespaces = reg, buildGroups(reg), registry.NewNamespaceCache(reg.Namespaces)
	s.extensions, s.registration = extensionsGroup(reg), registrationGroup(reg)
	s.rbac = registry.NewRBACCache(reg)
	s.accounts = registry.NewServiceAccountCache(reg.ServiceAccounts)
	s.priorities = registry.NewPriorityClassCache(reg.Store(registry.PriorityClasses))
	s.admissionInformers = newAdmissionInformers(reg)
	if s.admission, err = newAdmissionChain(s.namespaces, s.serviceAccounts(), storageClassLister{reg.Store(registry.StorageClasses)}, priorityClassGetter{reg, s.priorities}, s.admissionInformers, cfg.DisableAdmissionPlugins...); err != nil {
		return nil, err
	}
	s.authorizer = auth.Chain(auth.NewNodeAuthorizerWithGraph(s.podsOnNode), auth.NewRBACAuthorizer(s.rbac))
	if err := s.setupServiceAccountTokens(); err != nil {
		return nil, err
	}
	if cfg.AuditLog != nil {
		s.auditLog = audit.NewLog(cfg.AuditLog, cfg.errorLog())
	}
	if s.openapi, err = openapi.NewInBackground(s.openAPIResources()); err != nil {
		return nil, fmt.Errorf("apiserver: openapi: %w", err)
	}
	addr := net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.Port))
	lc := net.ListenConfig{KeepAlive: tcpKeepAlivePeriod}
	if s.ln, err = lc.Listen(context.Background(), "tcp", addr); err != nil {
		return nil, fmt.Errorf("apiserver: listen on %s: %w", addr, err)
	}
	s.report(StartupEvent{Step: StartupListenerBound, Detail: s.URL()})
	return s, nil
}

// serviceAccounts is the getter of service accounts (and pods) the
// ServiceAccount admission plugin and the token authenticator read.
func (s *Server) serviceAccounts() serviceAccountGetter {
	return serviceAccountGetter{reg: s.reg, accounts: s.accounts}
}

// URL is the server's base URL, e.g. https://127.0.0.1:6443.
func (s *Server) URL() string {
	if s.cfg.TLS != nil {
		return "https://" + s.ln.Addr().String()
	}
	return "http://" + s.ln.Addr().String()
}

// InstallChain puts the handler chain (the filters of
// filters.BuildHandlerChain) around servers[0], the first server of the
// delegation chain (the aggregator). servers are the servers of the
// chain, first to last (the chain's benchmark takes kube-apiserver from
// them). It is called once, before Run.
func (s *Server) InstallChain(servers ...http.Handler) {
	s.chain = servers
	s.handler = s.withFilters(servers[0])
}

// withFilters wraps h in the filters of every request (package filters).
func (s *Server) withFilters(h http.Handler) http.Handler {
	c := s.cfg
	return filters.BuildHandlerChain(h, &filters.Config{
		Authenticator: s.authn, Authorizer: s.authorizer, AuditLog: s.auditLog, ErrorLog: c.errorLog(),
		RequestTimeout: c.RequestTimeout, MaxRequestsInFlight: c.MaxRequestsInFlight, MaxMutatingRequestsInFlight: c.MaxMutatingRequestsInFlight,
		Recorder: c.Recorder, Component: component, WriteError: s.WriteError, Inflight: s.inflight,
	})
}

// Addr is the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Authorizer is the server's authorizer: Node, then RBAC.
func (s *Server) Authorizer() auth.Authorizer { return s.authorizer }

// RBAC is the cache of RBAC roles and bindings the authorizer reads.
func (s *Server) RBAC() *registry.RBACCache { return s.rbac }

// OnShutdown adds fn to what Run does once the HTTP server has stopped
// (the aggregator closes its idle connections to backends).
func (s *Server) OnShutdown(fn func()) { s.onShutdown = append(s.onShutdown, fn) }

// Config is the configuration the server was built on; it must not be
// changed.
func (s *Server) Config() *Config { return s.cfg }

// ErrorLog is where the server logs what goes wrong (Config.ErrorLog).
func (s *Server) ErrorLog() *log.Logger { return s.cfg.errorLog() }

// Handler returns the full handler chain (for tests with httptest).
func (s *Server) Handler() http.Handler { return s.handler }

// Registry returns the stores behind the API.
func (s *Server) Registry() *registry.Registry { return s.reg }

// Close releases the listener of a server that will not Run.
func (s *Server) Close() error { return s.ln.Close() }

// shutdownGrace bounds how long Run waits for requests in flight at exit.
const shutdownGrace = 5 * time.Second

// Run starts the caches, serves once the RBAC cache and the watch caches
// have loaded, then runs the post-start hooks (AddPostStartHook), each in
// its own goroutine, as kube-apiserver does once it listens: the built-in
// ones create the system namespaces and the default RBAC policy; /readyz
// passes once every hook has finished. When ctx is done, Run ends every
// request (watches included), waits for all it started and returns nil.
// It returns early with an error if it cannot start or a hook fails.
//
// kube-apiserver serves before its informers and watch caches have
// loaded (readyz then reports informer-sync and poststarthook/
// storage-readiness failing); kubesim waits for them before it serves, so
// that a restarted server never answers 403 for want of its roles, nor
// 429 to a watch whose cache is loading.
func (s *Server) Run(ctx context.Context) error {
	// Requests derive their context from this one: cancelling it ends
	// long-running watches, which Shutdown alone would wait for forever.
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	defer cancelRequests()
	srv := s.newHTTPServer(reqCtx)
	var wg sync.WaitGroup
	defer wg.Wait()
	// Background work (caches, hooks, the controllers hooks start) stops
	// when Run returns, after the HTTP server.
	ctrlCtx, stopCtrl := context.WithCancel(context.Background())
	defer stopCtrl()
	s.startCaches(ctrlCtx, &wg)
	if !s.rbac.WaitForSync(ctx) || s.reg.WaitForWatchCaches(ctx) != nil {
		s.ln.Close()
		return ctx.Err()
	}
	s.report(StartupEvent{Step: StartupCachesSynced})
	serveErr := make(chan error, 1)
	if srv.TLSConfig != nil {
		// ServeTLS with the certificate already in TLSConfig: HTTP/2 is
		// negotiated through ALPN (h2, http/1.1).
		go func() { serveErr <- srv.ServeTLS(s.drainer.Listener(s.ln), "", "") }()
	} else {
		go func() { serveErr <- srv.Serve(s.ln) }()
	}
	s.report(StartupEvent{Step: StartupServing})
	hookFailed := s.runPostStartHooks(ctrlCtx, &wg)
	var failed error
	select {
	case err := <-serveErr:
		return fmt.Errorf("apiserver: %w", err)
	case failed = <-hookFailed:
		failed = fmt.Errorf("apiserver: %w", failed)
	case <-ctx.Done():
		// As kube-apiserver, readyz fails from now on (ShutdownInitiated)
		// and the pre-shutdown hooks run while it serves.
		close(s.shutdownInitiated)
		if !s.crashed.Load() {
			s.runPreShutdownHooks()
		}
	}
	cancelRequests()
	if s.crashed.Load() {
		_ = srv.Close() // every connection cut, as a dead process's
	} else {
		// Shutdown as kube-apiserver's, but each HTTP/2 connection ends
		// as soon as it is done (h2drain), not a second later.
		s.drainer.Shutdown(srv, shutdownGrace)
	}
	for _, fn := range s.onShutdown {
		fn()
	}
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) && failed == nil {
		return fmt.Errorf("apiserver: %w", err)
	}
	return failed
}

// startCaches starts, in goroutines added to wg, the watch caches, the
// namespace, service account and RBAC caches, the admission plugins'
// informers and the etcd compactor,
// until ctx is done.
// Emptying a deleted namespace is the controller manager's namespace
// controller's work, as in Kubernetes: without it a namespace stays
// Terminating.
func (s *Server) startCaches(ctx context.Context, wg *sync.WaitGroup) {
	runs := []func(context.Context){s.reg.RunWatchCaches, s.namespaces.Run, s.accounts.Run, s.priorities.Run, s.rbac.Run, s.admissionInformers.Run}
	if s.cfg.CompactionInterval > 0 {
		// kube-apiserver's storage factory starts the etcd compactor too.
		runs = append(runs, storage.NewCompactor(s.cfg.Etcd, s.cfg.CompactionInterval, s.cfg.errorLog().Printf).Run)
	}
	for _, run := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run(ctx)
		}()
	}
}

// Limits of the HTTP server, as kube-apiserver sets them.
const (
	// maxHeaderBytes limits the headers of a request.
	maxHeaderBytes = 1 << 20
	// http2MaxFrameSize and http2MaxUploadBufferPerStream: at least 99%
	// of serialized objects are smaller than 256 KiB, so most request
	// bodies fit in one frame and one stream's receive window. A
	// connection's window is this times the streams it may carry.
	http2MaxFrameSize             = 256 << 10
	http2MaxUploadBufferPerStream = 256 << 10
	// tcpKeepAlivePeriod is the TCP keep-alive of accepted connections,
	// so that dead peers (a laptop closed mid-watch) go away.
	tcpKeepAlivePeriod = 3 * time.Minute
)

// newHTTPServer returns the server Run serves s.handler with, configured
// as kube-apiserver's secure serving is: connections idle for
// cfg.IdleTimeout are closed (an HTTP/1.1 connection between requests, an
// HTTP/2 connection with no open stream, which is told so by a GOAWAY
// frame first; a watch in progress keeps its connection busy), the TLS
// handshake and a request's headers must arrive within
// cfg.ReadHeaderTimeout, and HTTP/2 connections carry at most
// cfg.HTTP2MaxStreamsPerConnection concurrent streams. There is no read or
// write timeout on the whole request: watches last as long as they are
// asked to. Requests derive their context from reqCtx.
func (s *Server) newHTTPServer(reqCtx context.Context) *http.Server {
	c := s.cfg
	connWindow := min(int64(http2MaxUploadBufferPerStream)*int64(c.HTTP2MaxStreamsPerConnection), math.MaxInt32)
	srv := &http.Server{
		Handler:           s.handler,
		ErrorLog:          c.errorLog(),
		MaxHeaderBytes:    maxHeaderBytes,
		IdleTimeout:       c.IdleTimeout,
		ReadHeaderTimeout: c.ReadHeaderTimeout,
		BaseContext:       func(net.Listener) context.Context { return reqCtx },
		ConnState:         s.drainer.ConnState,
		// net/http's HTTP/2 takes its idle timeout from IdleTimeout. Its
		// documentation puts the connection's receive buffer below 4 MiB,
		// but it takes up to 2^31-1 (TestHTTP2Limits checks the window
		// the server grants).
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams:          c.HTTP2MaxStreamsPerConnection,
			MaxReadFrameSize:              http2MaxFrameSize,
			MaxReceiveBufferPerStream:     http2MaxUploadBufferPerStream,
			MaxReceiveBufferPerConnection: int(connWindow),
		},
	}
	if c.TLS != nil {
		srv.TLSConfig = c.TLS.Clone()
	}
	return srv
}

// Crash makes the server's stop (the end of Run's context) that of a
// process killed with SIGKILL: no pre-shutdown hook runs, so its key in
// /registry/masterleases stays until its etcd lease expires and another
// server's reconcile drops its address, and every connection is cut
// instead of drained. Safe for concurrent use.
func (s *Server) Crash() { s.crashed.Store(true) }
