package embedetcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/storage/wal"
)

// Defaults used by NewConfig.
const (
	// DefaultMaxRequestBytes is large enough for any object the API server
	// accepts (its request body limit is 3 MiB) plus the metadata it adds.
	DefaultMaxRequestBytes = 8 << 20
	// DefaultStartTimeout bounds how long Start waits for the member to be ready.
	DefaultStartTimeout = 30 * time.Second
	// DefaultProgressNotifyInterval is how often etcd tells idle watchers of
	// its current revision. The API server turns these notifications into
	// BOOKMARK events for watchers that asked for them.
	DefaultProgressNotifyInterval = 10 * time.Second
)

// Config says where the member keeps its data and logs.
type Config struct {
	// Dir holds etcd's data (the member directory). Reusing it keeps all
	// keys and revisions.
	Dir string
	// LogFile receives etcd's structured logs.
	LogFile string
	// UnsafeNoFsync skips fsync: faster, loses data on a machine crash.
	// Tests use it; a kept --data-dir should not.
	UnsafeNoFsync bool
	// ProgressNotifyInterval is the period of watch progress notifications.
	ProgressNotifyInterval time.Duration
	// MaxRequestBytes is the largest request etcd accepts.
	MaxRequestBytes uint
	// StartTimeout bounds the wait for the member to become ready.
	StartTimeout time.Duration
}

// NewConfig returns a Config with defaults for a member keeping its data in
// dataDir/etcd and its logs in dataDir/logs/etcd.log.
func NewConfig(dataDir string) *Config {
	return &Config{
		Dir:                    filepath.Join(dataDir, "etcd"),
		LogFile:                filepath.Join(dataDir, "logs", "etcd.log"),
		ProgressNotifyInterval: DefaultProgressNotifyInterval,
		MaxRequestBytes:        DefaultMaxRequestBytes,
		StartTimeout:           DefaultStartTimeout,
	}
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("etcd: data dir is empty")
	case c.LogFile == "":
		return errors.New("etcd: log file is empty")
	case c.ProgressNotifyInterval <= 0:
		return errors.New("etcd: progress notify interval must be positive")
	case c.StartTimeout <= 0:
		return errors.New("etcd: start timeout must be positive")
	}
	return nil
}

// Server is a running member and its in-process client.
type Server struct {
	etcd      *embed.Etcd
	client    *clientv3.Client
	cleanup   func()
	closeOnce sync.Once
}

// CorruptError says that the member's data on disk cannot be used: its
// database or its write-ahead log is damaged. Start returns it (wrapped)
// instead of letting etcd crash the process.
type CorruptError struct {
	// Dir is the member's data directory (Config.Dir).
	Dir string
	// Cause says what is wrong.
	Cause error
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("etcd data in %s is corrupt: %v", e.Dir, e.Cause)
}

func (e *CorruptError) Unwrap() error { return e.Cause }

// Start starts the member and waits until it serves requests, or until
// ctx is done (then it returns ctx's error at once; a start still under
// way inside etcd is closed when it ends). The caller must Close the
// returned Server.
//
// Before etcd opens the member's data, Start checks it with plain reads,
// writing nothing (checkMemberData): a damaged database would kill the
// process from inside etcd; a write-ahead log that is missing, empty,
// damaged or cut short of what the database holds would make etcd panic,
// or start a new log beside the data and never become ready. A damaged
// database or write-ahead log is a *CorruptError, and the data dir is
// left as it was (etcd's own repair of a write torn by a crash at the
// end of the log still runs).
func Start(ctx context.Context, cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := prepareFiles(cfg.LogFile); err != nil {
		return nil, err
	}
	if err := checkMemberData(cfg.Dir, true); err != nil {
		return nil, &CorruptError{Dir: cfg.Dir, Cause: err}
	}
	sockDir, err := socketDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	log := newRotatingLog(cfg.LogFile)
	cleanup := func() {
		if sockDir != cfg.Dir {
			os.RemoveAll(sockDir)
		}
		log.Close()
	}
	client := url.URL{Scheme: "unix", Path: filepath.Join(sockDir, "client.sock")}
	ecfg := embedConfig(cfg, client, sockDir)
	ecfg.ZapLoggerBuilder = log.builder()
	e, err := startMember(ctx, ecfg, cfg.StartTimeout)
	if err != nil {
		cleanup()
		if errors.Is(err, wal.ErrCRCMismatch) {
			return nil, &CorruptError{Dir: cfg.Dir, Cause: err}
		}
		return nil, err
	}
	// Only this user may connect (the directory is 0700 already).
	if err := os.Chmod(client.Path, 0o600); err != nil {
		e.Close()
		cleanup()
		return nil, fmt.Errorf("etcd: %w", err)
	}
	c, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{client.String()},
		DialTimeout: cfg.StartTimeout,
		Logger:      e.GetLogger(),
		// Objects up to the API server's limit, and lists of many.
		MaxCallSendMsgSize: int(cfg.MaxRequestBytes) + 1<<20,
		MaxCallRecvMsgSize: math.MaxInt32,
	})
	if err != nil {
		e.Close()
		cleanup()
		return nil, fmt.Errorf("etcd: client: %w", err)
	}
	return &Server{etcd: e, client: c, cleanup: cleanup}, nil
}

// prepareFiles creates the log directory and the log file, readable by
// this user only (etcd's logger would create it for everyone to read).
func prepareFiles(logFile string) error {
	if err := os.MkdirAll(filepath.Dir(logFile), 0o700); err != nil {
		return fmt.Errorf("etcd: create log dir: %w", err)
	}
	f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("etcd: log file: %w", err)
	}
	f.Close()
	if err := os.Chmod(logFile, 0o600); err != nil {
		return fmt.Errorf("etcd: log file: %w", err)
	}
	return nil
}

// embedConfig is etcd's configuration of the member: one member, its
// client on the unix socket client, and no peer listener at all.
//
// A member alone has no peers to talk to, so none is needed; and a peer
// listener would be reachable by others: etcd binds a unix peer URL's
// host, which for a path-only URL is empty, so the kernel gives the
// socket an abstract name that ignores file permissions. The peer URL is
// still advertised (etcd's membership needs one) as a path in the
// private socket directory where nothing listens.
func embedConfig(cfg *Config, client url.URL, sockDir string) *embed.Config {
	ecfg := embed.NewConfig()
	ecfg.Name = "kubesim"
	ecfg.Dir = cfg.Dir
	ecfg.LogOutputs = []string{cfg.LogFile}
	ecfg.UnsafeNoFsync = cfg.UnsafeNoFsync
	ecfg.WatchProgressNotifyInterval = cfg.ProgressNotifyInterval
	ecfg.MaxRequestBytes = cfg.MaxRequestBytes
	// One member elects itself: short ticks make start-up take milliseconds.
	ecfg.TickMs = 10
	ecfg.ElectionMs = 100
	peer := url.URL{Scheme: "unix", Path: filepath.Join(sockDir, "peer.sock")}
	ecfg.ListenClientUrls = []url.URL{client}
	ecfg.AdvertiseClientUrls = []url.URL{client}
	ecfg.ListenPeerUrls = nil
	ecfg.AdvertisePeerUrls = []url.URL{peer}
	ecfg.InitialCluster = ecfg.InitialClusterFromName(ecfg.Name)
	// Metrics and the HTTP gateway are not used.
	ecfg.EnableGRPCGateway = false
	return ecfg
}

// startResult is what embed.StartEtcd returned.
type startResult struct {
	e   *embed.Etcd
	err error
}

// startMember starts etcd and waits until it is ready, it fails, timeout
// passes or ctx is done. etcd's start cannot be cancelled (opening its
// database may wait for a file lock), so a start given up on is left to
// finish in a goroutine that closes what it brings up.
func startMember(ctx context.Context, ecfg *embed.Config, timeout time.Duration) (*embed.Etcd, error) {
	return startAndWait(ctx, ecfg, timeout, timeout)
}

// startAndWait is startMember with two bounds: openTimeout for
// embed.StartEtcd (opening the data dir), readyTimeout, counted from the
// start too, for the member to be ready (a member of a cluster waits for
// its peers there).
func startAndWait(ctx context.Context, ecfg *embed.Config, openTimeout, readyTimeout time.Duration) (*embed.Etcd, error) {
	began := time.Now()
	ch := make(chan startResult, 1)
	go func() {
		e, err := embed.StartEtcd(ecfg)
		ch <- startResult{e, err}
	}()
	expired := time.NewTimer(openTimeout)
	defer expired.Stop()
	timeout := openTimeout
	var e *embed.Etcd
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, fmt.Errorf("etcd: start: %w", r.err)
		}
		e = r.e
		expired.Reset(time.Until(began.Add(readyTimeout)))
		timeout = readyTimeout
	case <-ctx.Done():
		return nil, &AbandonedStartError{Err: fmt.Errorf("etcd: start: %w", ctx.Err()), Done: closeWhenStarted(ch)}
	case <-expired.C:
		return nil, &AbandonedStartError{Err: fmt.Errorf("etcd: not started after %s (logs: %s)", timeout, ecfg.LogOutputs[0]), Done: closeWhenStarted(ch)}
	}
	select {
	case <-e.Server.ReadyNotify():
		return e, nil
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd: %w", err)
	case <-ctx.Done():
		e.Close()
		return nil, fmt.Errorf("etcd: start: %w", ctx.Err())
	case <-expired.C:
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("etcd: not ready after %s (logs: %s)", timeout, ecfg.LogOutputs[0])
	}
}

// closeWhenStarted closes, in a goroutine of its own, the member a start
// given up on brings up; the channel it returns is closed once that is
// done (or the start failed).
func closeWhenStarted(ch <-chan startResult) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		if r := <-ch; r.err == nil {
			r.e.Close()
		}
	}()
	return done
}

// AbandonedStartError is Start's error when it gave up (its context
// done, or its timeout passed) while etcd was still starting: etcd goes
// on in the background, may still write into its data dir, and closes
// what it brought up. Done is closed once it has; whoever removes the
// data dir waits for it first.
type AbandonedStartError struct {
	Err  error
	Done <-chan struct{}
}

func (e *AbandonedStartError) Error() string { return e.Err.Error() }
func (e *AbandonedStartError) Unwrap() error { return e.Err }

// maxSocketPath is the longest unix socket path Linux accepts, less one.
const maxSocketPath = 107

// socketDir returns the directory for the member's sockets: its data
// directory, created with mode 0700, or a new private temporary directory
// if a socket path there would be too long or holds a character etcd's
// initial-cluster string cannot carry.
func socketDir(dataDir string) (string, error) {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return "", fmt.Errorf("etcd: create data dir: %w", err)
	}
	if socketPathOK(dataDir) {
		return dataDir, nil
	}
	dir, err := os.MkdirTemp("", "kubesim-etcd-") // mode 0700
	if err != nil {
		return "", fmt.Errorf("etcd: socket dir: %w", err)
	}
	if !socketPathOK(dir) {
		os.RemoveAll(dir)
		return "", fmt.Errorf("etcd: socket path %s is too long; set TMPDIR to a short directory without ',' or '='", filepath.Join(dir, "client.sock"))
	}
	return dir, nil
}

func socketPathOK(dir string) bool {
	p := filepath.Join(dir, "client.sock")
	return len(p) <= maxSocketPath && !strings.ContainsAny(p, ",=")
}

// Client returns a client of the member (gRPC over its socket). It is
// valid until Close and safe for concurrent use.
func (s *Server) Client() *clientv3.Client { return s.client }

// Close stops the member. It waits for in-flight requests and is safe to call
// more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		_ = s.client.Close()
		s.etcd.Close()
		s.cleanup()
	})
}
