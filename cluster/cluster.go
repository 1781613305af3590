package cluster

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/klog/v2"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/audit"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/serverchain"
	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
	"github.com/kubesim/kubesim/kubelet"
)

// Cluster is a running control plane.
type Cluster struct {
	// DataDir holds etcd's data, logs/ and kubeconfig.
	DataDir string
	// Kubeconfig is the path of a kubeconfig for the admin user (client
	// certificate, group system:masters).
	Kubeconfig string
	// StudentKubeconfig is the path of a kubeconfig for the user student
	// (bearer token, allowed to view).
	StudentKubeconfig string
	// URL is the API server's base URL (https).
	URL string
	// Recorder carries the flow events (request traces...).
	Recorder *flow.Recorder
	// Gate is Config.Gate (nil: none).
	Gate *flow.Gate
	// Authority holds the cluster's CA, certificates and tokens.
	Authority *pki.Authority

	tempDir bool
	lock    *dataDirLock
	startup *startupLog
	// etcdAbandoned is closed once an etcd start Start gave up on has
	// ended (nil: none): Close waits for it before removing a temporary
	// data dir, which etcd may still be writing into.
	etcdAbandoned <-chan struct{}
	etcd          *embedetcd.Server
	// etcdClient is the API server's storage client: etcd.Client(), or
	// the external cluster's (closed by Close).
	etcdClient *clientv3.Client
	runCtx     context.Context
	readyWait  time.Duration
	speed      float64
	images     *kubelet.Catalogue // the kubelets' registry; nil: the default
	// controlPlaneNode runs the control plane's static pods; "": none.
	controlPlaneNode string
	logFile          io.WriteCloser // logs/apiserver.log, rotated (apiserverLog)
	logSink          *logSink
	auditFile        *audit.RotatingLog
	cancel           context.CancelFunc
	wg               sync.WaitGroup
	runErr           error
	once             sync.Once

	// The API server: its configuration (reused by RestartAPIServer),
	// and the running one.
	apiMu     sync.Mutex
	apiCfg    *apiserver.Config
	api       *apiserver.Server
	apiCancel context.CancelFunc
	apiDone   chan struct{}

	// heartbeats are Config.NodeLeaseDuration and NodeMonitorGracePeriod.
	heartbeats heartbeatPeriods

	compMu sync.Mutex
	// elected are the scheduler and controller manager instances
	// (leaderelection.go).
	elected  electedComponents
	kubelets map[string]*component
	specs    map[string]kubelet.NodeSpec
	// metrics is the metrics server and its Service entry (metrics.go).
	metrics *metricsState
	// endpoints are the components' secure ports (componentmetrics.go).
	endpoints componentEndpoints
}

// Start boots etcd and the API server and returns once the API server is
// ready (its /readyz passes: every post-start hook has finished), then
// starts the components. Like kube-apiserver's command it first
// completes cfg (Config.Complete, which changes cfg) and validates it
// (Config.Validate: every problem at once, returned as it is); each step
// is reported to cfg.OnStartup. The cluster runs until ctx is done or
// Close is called; Close must be called either way to release it.
func Start(ctx context.Context, cfg *Config) (_ *Cluster, err error) {
	if cfg.HA != nil {
		return StartHA(ctx, cfg, *cfg.HA)
	}
	steps := newStartupLog(cfg.OnStartup)
	filled := cfg.Complete()
	steps.add(StartupComplete, "options", "ok", describeOptions(cfg, filled))
	if err := cfg.Validate(); err != nil {
		steps.add(StartupValidate, "options", "failed", err.Error())
		return nil, err
	}
	steps.add(StartupValidate, "options", "ok", "every option is valid")
	c := &Cluster{DataDir: cfg.DataDir, speed: cfg.Speed, Gate: cfg.Gate, readyWait: cfg.ReadyTimeout, startup: steps,
		heartbeats: heartbeatPeriods{lease: cfg.NodeLeaseDuration, grace: cfg.NodeMonitorGracePeriod},
		kubelets:   map[string]*component{}, specs: map[string]kubelet.NodeSpec{}}
	if c.DataDir == "" {
		if c.DataDir, err = os.MkdirTemp("", "kubesim-"); err != nil {
			return nil, fmt.Errorf("cluster: data dir: %w", err)
		}
		c.tempDir = true
	}
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if err := c.openDataDir(cfg.AuditLogRotation); err != nil {
		return nil, err
	}
	if err := c.loadImages(cfg); err != nil {
		return nil, err
	}
	c.Recorder = cfg.Recorder
	if c.Recorder == nil {
		c.Recorder = flow.NewRecorder()
	}
	if err := c.loadAuthority(cfg.BindAddress, cfg.PKIDir); err != nil {
		return nil, err
	}
	if err := c.startEtcd(ctx, cfg); err != nil {
		return nil, err
	}
	c.startup.add(StartupRun, "etcd", "started", c.describeEtcd(cfg))
	c.apiCfg = c.apiConfig(cfg)
	if c.apiCfg.Aggregator, err = c.aggregatorConfig(cfg.AggregatorProbePeriod); err != nil {
		return nil, err
	}
	if c.apiCfg.Kubelet, err = c.kubeletClientConfig(); err != nil {
		return nil, err
	}
	// Service account tokens are signed with a key kept in the data dir,
	// so that a token outlives a restart of the same cluster.
	if c.apiCfg.ServiceAccountSigningKey, err = c.Authority.ServiceAccountKey(); err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancel(ctx)
	c.cancel, c.runCtx = cancel, runCtx
	if err := c.startAPI(ctx); err != nil {
		return nil, err
	}
	if err := c.writeKubeconfigs(); err != nil {
		return nil, err
	}
	if err := c.startComponents(cfg); err != nil {
		return nil, err
	}
	c.startup.add(StartupRun, "components", "started", describeComponents(cfg))
	if cfg.ControllerManager {
		if err := c.waitDefaultServiceAccount(ctx); err != nil {
			return nil, err
		}
		if err := c.installStorageClass(ctx); err != nil {
			return nil, fmt.Errorf("cluster: the default StorageClass: %w", err)
		}
	}
	c.startControl()
	return c, nil
}

// openDataDir claims the data dir (claimDataDir) and opens the log files
// in it: the API server's log, where klog goes too, and the audit log,
// rotated by rotation.
func (c *Cluster) openDataDir(rotation audit.Rotation) (err error) {
	var notes []string
	if c.lock, err = claimDataDir(c.DataDir, func(f string, args ...any) { notes = append(notes, fmt.Sprintf(f, args...)) }); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(c.DataDir, "logs"), 0o700); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	if c.logFile, err = openComponentLog(filepath.Join(c.DataDir, "logs", "apiserver.log")); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	c.logSink = &logSink{w: c.logFile}
	routeKlog(c.logSink)
	for _, n := range notes {
		fmt.Fprintf(c.logSink, "cluster: %s\n", n)
	}
	if c.auditFile, err = audit.OpenRotatingLog(filepath.Join(c.DataDir, "logs", "audit.log"), rotation); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	return nil
}

// loadAuthority loads (or creates) the cluster's CA, certificates and
// tokens, in DataDir/pki or, when pkiDir is set, in pkiDir shared with
// other API servers, the serving certificate then staying in
// DataDir/pki. The serving certificate also names bindAddress unless it
// is unspecified (0.0.0.0): a loopback address other than 127.0.0.1
// too, so that API servers of one machine serve on 127.0.0.1, 127.0.0.2,
// ... with the same port.
func (c *Cluster) loadAuthority(bindAddress, pkiDir string) (err error) {
	pcfg := pki.NewConfig(c.DataDir)
	if pkiDir != "" {
		pcfg.ServingDir, pcfg.Dir = pcfg.Dir, pkiDir
	}
	if ip := net.ParseIP(bindAddress); ip != nil && !ip.IsUnspecified() {
		pcfg.Hosts = append(pcfg.Hosts, bindAddress)
	}
	pcfg.Logf = func(format string, args ...any) { fmt.Fprintf(c.logSink, format+"\n", args...) }
	c.Authority, err = pki.Load(pcfg)
	return err
}

// startEtcd connects to the external etcd of cfg.EtcdServers, or starts
// the embedded member. A start given up on is noted for Close; damaged
// data is reported against the data dir the user gave.
func (c *Cluster) startEtcd(ctx context.Context, cfg *Config) (err error) {
	if len(cfg.EtcdServers) > 0 {
		return c.connectExternalEtcd(ctx, cfg)
	}
	ecfg := embedetcd.NewConfig(c.DataDir)
	ecfg.UnsafeNoFsync = cfg.UnsafeNoFsync
	if c.etcd, err = embedetcd.Start(ctx, ecfg); err == nil {
		c.etcdClient = c.etcd.Client()
		return nil
	}
	var abandoned *embedetcd.AbandonedStartError
	if errors.As(err, &abandoned) {
		c.etcdAbandoned = abandoned.Done
	}
	var corrupt *embedetcd.CorruptError
	if errors.As(err, &corrupt) {
		// Name the data dir the user gave, not etcd's part of it.
		return &embedetcd.CorruptError{Dir: c.DataDir, Cause: corrupt.Cause}
	}
	return err
}

// apiConfig is the API server's configuration: on the member, with the
// cluster's certificates, tokens, recorder, gate and logs.
func (c *Cluster) apiConfig(cfg *Config) *apiserver.Config {
	acfg := apiserver.NewConfig(c.etcdClient)
	acfg.BindAddress, acfg.Port = cfg.BindAddress, cfg.Port
	acfg.BookmarkInterval = cfg.BookmarkInterval
	acfg.CompactionInterval = cfg.EtcdCompactionInterval
	if cfg.RequestTimeout > 0 {
		acfg.RequestTimeout = cfg.RequestTimeout
	}
	acfg.ErrorLog = log.New(c.logSink, "apiserver: ", log.LstdFlags)
	acfg.TLS = c.Authority.ServingTLSConfig()
	acfg.Authenticator = auth.Union(auth.NewTokenAuthenticator(tokenEntries(c.Authority)), auth.NewCertAuthenticator())
	acfg.Recorder = c.Recorder
	if cfg.APIServerName != "" {
		acfg.Recorder = c.Recorder.Stamped(cfg.APIServerName)
	}
	acfg.PodStages = cfg.podStages
	acfg.Gate = c.Gate
	acfg.ComponentRunning = c.componentRunning
	acfg.AuditLog = c.auditFile
	acfg.DisableAdmissionPlugins = cfg.DisableAdmissionPlugins
	acfg.StorageMediaType = cfg.StorageMediaType
	return acfg
}

// writeKubeconfigs writes the admin's and the student's kubeconfigs.
func (c *Cluster) writeKubeconfigs() error {
	c.Kubeconfig = filepath.Join(c.DataDir, "kubeconfig")
	if err := c.writeKubeconfig(c.Kubeconfig, pki.Admin(), pki.ClientCertificate); err != nil {
		return err
	}
	c.StudentKubeconfig = filepath.Join(c.DataDir, "student.kubeconfig")
	return c.writeKubeconfig(c.StudentKubeconfig, pki.Student(), pki.BearerToken)
}

// startComponents starts the kubelets of cfg's nodes, the watch that
// attaches a kubelet to every Node created, the controller manager, the
// scheduler and the metrics server.
func (c *Cluster) startComponents(cfg *Config) error {
	if err := c.startComponentEndpoints(cfg); err != nil {
		return err
	}
	if cfg.ControlPlanePods && len(cfg.Nodes) > 0 {
		c.controlPlaneNode = cfg.Nodes[0].Name
	}
	for _, spec := range cfg.Nodes {
		if err := c.StartKubelet(spec); err != nil {
			return err
		}
	}
	if cfg.AttachNodes {
		c.runComponent(c.watchNodes)
	}
	if cfg.ControllerManager {
		if err := c.StartControllerManager(); err != nil {
			return err
		}
	}
	if cfg.Scheduler {
		if err := c.StartScheduler(); err != nil {
			return err
		}
	}
	// Last: it waits for the metrics server's readiness, which the
	// others need not wait for.
	if cfg.MetricsServer {
		return c.StartMetricsServer(c.runCtx)
	}
	return nil
}

// tokenEntries turns the authority's tokens into the authenticator's table.
func tokenEntries(a *pki.Authority) []auth.TokenEntry {
	var out []auth.TokenEntry
	for _, t := range a.Tokens() {
		out = append(out, auth.TokenEntry{Token: t.Token, User: auth.User{Name: t.User, UID: t.UID, Groups: t.Groups}})
	}
	return out
}

// writeKubeconfig writes a kubeconfig for id.
func (c *Cluster) writeKubeconfig(path string, id pki.Identity, method pki.AuthMethod) error {
	kc, err := c.Authority.Kubeconfig(c.URL, id, method)
	if err != nil {
		return fmt.Errorf("cluster: kubeconfig for %s: %w", id.User, err)
	}
	return pki.WriteKubeconfig(path, kc)
}

// waitReady polls /readyz (open to anonymous requests) of the server at
// url until it answers 200, verifying it against ca with the name
// serverName ("" for the host of url). what names the server in the
// error.
func waitReady(ctx context.Context, what, url, serverName string, ca *x509.CertPool, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca, ServerName: serverName, MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Timeout: time.Second, Transport: tr}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: %s at %s not ready after %s", what, url, timeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// startAPI creates and runs an API server from c.apiCfg, in a goroutine
// owned by the cluster, and waits until it is ready; if Run ends first
// (a post-start hook failed), its error.
func (c *Cluster) startAPI(ctx context.Context) error {
	api, err := serverchain.New(c.apiCfg)
	if err != nil {
		return err
	}
	api.OnStartup(c.startup.apiStartup)
	apiCtx, cancel := context.WithCancel(c.runCtx)
	done := make(chan struct{})
	c.apiMu.Lock()
	c.api, c.apiCancel, c.apiDone = api, cancel, done
	if c.URL == "" {
		c.URL = api.URL() // a restart listens on the same address
	}
	c.apiMu.Unlock()
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(done)
		if err := api.Run(apiCtx); err != nil {
			c.apiMu.Lock()
			c.runErr = err
			c.apiMu.Unlock()
		}
	}()
	readyCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		select {
		case <-done:
			stop()
		case <-readyCtx.Done():
		}
	}()
	if err := waitReady(readyCtx, "API server", c.URL, "", c.Authority.CAPool(), c.readyWait); err != nil {
		return c.apiRunError(done, err)
	}
	c.startup.add(StartupRun, "readyz", "ok", "GET /readyz answered 200: the API server is ready")
	return nil
}

// apiRunError is the error of an API server that did not become ready:
// Run's own if it has returned, else err.
func (c *Cluster) apiRunError(done <-chan struct{}, err error) error {
	select {
	case <-done:
		c.apiMu.Lock()
		defer c.apiMu.Unlock()
		if c.runErr != nil {
			return c.runErr
		}
	default:
	}
	return err
}

// RestartAPIServer stops the API server and starts a new one on the same
// address, as a restart of kube-apiserver would: every watch ends, and
// clients (the scheduler, the kubelets, kubectl -w) reconnect and carry
// on from their last resourceVersion. Etcd and the other components keep
// running. It returns once the new server answers.
func (c *Cluster) RestartAPIServer(ctx context.Context) error {
	c.apiMu.Lock()
	cancel, done, url := c.apiCancel, c.apiDone, c.URL
	c.apiMu.Unlock()
	// (c.URL is set once, by Start, before anyone reads it.)
	if cancel == nil {
		return errors.New("cluster: the API server is not running")
	}
	// Hold the group open across the gap, so that Wait does not return.
	c.wg.Add(1)
	defer c.wg.Done()
	cancel()
	<-done
	_, port, err := net.SplitHostPort(strings.TrimPrefix(url, "https://"))
	if err != nil {
		return fmt.Errorf("cluster: restart: %w", err)
	}
	if c.apiCfg.Port, err = strconv.Atoi(port); err != nil {
		return fmt.Errorf("cluster: restart: %w", err)
	}
	return c.startAPI(ctx)
}

// CompactEtcd compacts etcd's history up to its current revision, at
// once (the API server's compactor compacts every
// Config.EtcdCompactionInterval, to the revision of its previous tick, as
// kube-apiserver's). Reads at an older revision (lists at an exact
// resourceVersion, continue tokens) then get 410 Gone.
// Watches are served by the API server's watch cache, whose history does
// not depend on etcd's. It returns the revision.
func (c *Cluster) CompactEtcd(ctx context.Context) (int64, error) {
	resp, err := c.etcdClient.Get(ctx, "compact-probe")
	if err != nil {
		return 0, err
	}
	rev := resp.Header.Revision
	if _, err := c.etcdClient.Compact(ctx, rev); err != nil {
		return 0, err
	}
	return rev, nil
}

// Close stops the API server and etcd, and removes a temporary data dir.
// It returns the API server's error, if it failed while running.
func (c *Cluster) Close() error {
	c.once.Do(func() {
		// Clients first, while the API server still answers them.
		c.stopComponents()
		if c.cancel != nil {
			c.cancel()
		}
		c.wg.Wait()
		if c.etcd != nil {
			c.etcd.Close()
		} else if c.etcdClient != nil {
			_ = c.etcdClient.Close()
		}
		closeHA(c) // the other API servers and the etcd members, if any
		if c.logSink != nil {
			unrouteKlog(c.logSink)
			c.logSink.close()
		}
		if c.logFile != nil {
			_ = c.logFile.Close()
		}
		if c.auditFile != nil {
			_ = c.auditFile.Close()
		}
		if c.tempDir {
			c.waitAbandonedEtcd()
			_ = os.RemoveAll(c.DataDir)
		}
		c.lock.release()
	})
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	return c.runErr
}

// abandonedEtcdWait bounds how long Close waits for an abandoned etcd
// start before it removes a temporary data dir anyway.
const abandonedEtcdWait = 5 * time.Second

// waitAbandonedEtcd waits for an etcd start Start gave up on to end: a
// fresh temporary data dir has no lock to wait for, so it ends soon.
func (c *Cluster) waitAbandonedEtcd() {
	if c.etcdAbandoned == nil {
		return
	}
	select {
	case <-c.etcdAbandoned:
	case <-time.After(abandonedEtcdWait):
	}
}

// Etcd returns the embedded etcd member; nil when the cluster stores
// its objects in an external etcd (Config.EtcdServers; see EtcdClient).
func (c *Cluster) Etcd() *embedetcd.Server { return c.etcd }

// Wait blocks until the API server stops (its context done, or Close) and
// returns its error.
func (c *Cluster) Wait() error {
	c.wg.Wait()
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	return c.runErr
}

// logSink serializes writes to the log file and drops those that come after
// the cluster closed it (global loggers may still hold it).
type logSink struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	return s.w.Write(p)
}

func (s *logSink) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
}

// klog is process-wide: libraries (apimachinery, client-go) log through it,
// to stderr by default (errors even when told otherwise). It is pointed
// once at a writer that forwards to the log file of the cluster started
// last, so nothing reaches the terminal.
var (
	klogOnce   sync.Once
	klogMu     sync.Mutex
	klogTarget io.Writer
)

type klogWriter struct{}

func (klogWriter) Write(p []byte) (int, error) {
	klogMu.Lock()
	defer klogMu.Unlock()
	if klogTarget == nil {
		return len(p), nil
	}
	return klogTarget.Write(p)
}

func routeKlog(w io.Writer) {
	klogOnce.Do(func() { klog.SetLogger(logr.FromSlogHandler(slog.NewTextHandler(klogWriter{}, nil))) })
	klogMu.Lock()
	klogTarget = w
	klogMu.Unlock()
}

func unrouteKlog(w io.Writer) {
	klogMu.Lock()
	if klogTarget == w {
		klogTarget = nil
	}
	klogMu.Unlock()
}

// crashAPIServer makes the API server's coming stop a crash's
// (apiserver.Server.Crash).
func (c *Cluster) crashAPIServer() {
	c.apiMu.Lock()
	defer c.apiMu.Unlock()
	if c.api != nil {
		c.api.Crash()
	}
}
