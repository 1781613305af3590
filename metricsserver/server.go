package metricsserver

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/internal/h2drain"
)

// Server is a metrics server. New binds its listener; Run serves.
type Server struct {
	cfg      *Config
	ln       net.Listener
	factory  informers.SharedInformerFactory
	nodes    corelisters.NodeLister
	pods     corelisters.PodLister
	podIndex cache.Indexer
	services corelisters.ServiceLister
	slices   cache.Indexer
	synced   []cache.DoneChecker
	ready    chan struct{}
	handler  http.Handler
}

// New builds a Server on cfg and binds its listener. The caller must Run
// or Close it.
func New(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, factory: informers.NewSharedInformerFactory(cfg.Client, 0), ready: make(chan struct{})}
	nodeInf, podInf := s.factory.Core().V1().Nodes(), s.factory.InformerFor(&corev1.Pod{}, newPodInformer)
	s.nodes, s.pods, s.podIndex = nodeInf.Lister(), corelisters.NewPodLister(podInf.GetIndexer()), podInf.GetIndexer()
	svcInf, sliceInf := s.factory.InformerFor(&corev1.Service{}, newServiceInformer), s.factory.InformerFor(&discoveryv1.EndpointSlice{}, newSliceInformer)
	s.services, s.slices = corelisters.NewServiceLister(svcInf.GetIndexer()), sliceInf.GetIndexer()
	s.synced = []cache.DoneChecker{nodeInf.Informer().HasSyncedChecker(), podInf.HasSyncedChecker(),
		svcInf.HasSyncedChecker(), sliceInf.HasSyncedChecker()}
	s.handler = s.buildHandler()
	addr := net.JoinHostPort(cfg.BindAddress, strconv.Itoa(cfg.Port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metricsserver: listen on %s: %w", addr, err)
	}
	s.ln = ln
	return s, nil
}

// URL is the server's base URL, https://127.0.0.1:<port>.
func (s *Server) URL() string { return "https://" + s.ln.Addr().String() }

// Addr is the address the server listens on (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Handler returns the server's handler, authentication included (tests).
func (s *Server) Handler() http.Handler { return s.handler }

// Close releases the listener of a server that will not Run.
func (s *Server) Close() error { return s.ln.Close() }

// tlsConfig is the serving configuration: the serving certificate, and the
// front proxy's client certificate verified against the RequestHeaderCA
// when one is sent (without one, a request is 401, not a failed
// handshake, so that the health endpoints answer anyone).
func (s *Server) tlsConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{s.cfg.ServingCert},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
		ClientCAs:    s.cfg.RequestHeaderCA,
		ClientAuth:   tls.VerifyClientCertIfGiven,
	}
}

// Run starts the informers, serves until ctx is done, then stops serving
// and returns once everything it started has ended.
func (s *Server) Run(ctx context.Context) error {
	// The drainer ends the aggregator's idle HTTP/2 connections at once at
	// shutdown (h2drain), not a second later.
	drainer := h2drain.New()
	srv := &http.Server{Handler: s.handler, TLSConfig: s.tlsConfig(), ErrorLog: s.cfg.ErrorLog, ConnState: drainer.ConnState,
		ReadHeaderTimeout: 10 * time.Second, BaseContext: func(net.Listener) context.Context { return ctx }}
	if srv.ErrorLog == nil {
		srv.ErrorLog = discardLog
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer s.factory.Shutdown()
	s.factory.Start(ctx.Done())
	wg.Add(1)
	go func() {
		defer wg.Done()
		if cache.WaitFor(ctx, "", s.synced...) {
			close(s.ready)
		}
	}()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.ServeTLS(drainer.Listener(s.ln), "", "") }()
	select {
	case err := <-serveErr:
		return fmt.Errorf("metricsserver: %w", err)
	case <-ctx.Done():
	}
	drainer.Shutdown(srv, 5*time.Second)
	if err := <-serveErr; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metricsserver: %w", err)
	}
	return nil
}
