package embedetcd

import (
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

// Start starts the member and waits until it serves requests. The caller
// must Close the returned Server.
func Start(cfg *Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cfg.LogFile), 0o700); err != nil {
		return nil, fmt.Errorf("etcd: create log dir: %w", err)
	}
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
	// Clients and peers reach the member through unix sockets in its data
	// directory (mode 0700): nobody else on the machine can talk to etcd
	// behind the API server's back. If that path is too long for a
	// socket, they go in a private temporary directory instead.
	sockDir, err := socketDir(cfg.Dir)
	if err != nil {
		return nil, err
	}
	cleanup := func() {
		if sockDir != cfg.Dir {
			os.RemoveAll(sockDir)
		}
	}
	client := url.URL{Scheme: "unix", Path: filepath.Join(sockDir, "client.sock")}
	peer := url.URL{Scheme: "unix", Path: filepath.Join(sockDir, "peer.sock")}
	ecfg.ListenClientUrls = []url.URL{client}
	ecfg.AdvertiseClientUrls = []url.URL{client}
	ecfg.ListenPeerUrls = []url.URL{peer}
	ecfg.AdvertisePeerUrls = []url.URL{peer}
	ecfg.InitialCluster = ecfg.InitialClusterFromName(ecfg.Name)
	// Metrics and the HTTP gateway are not used.
	ecfg.EnableGRPCGateway = false
	e, err := embed.StartEtcd(ecfg)
	if err != nil {
		cleanup()
		return nil, fmt.Errorf("etcd: start: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		cleanup()
		return nil, fmt.Errorf("etcd: %w", err)
	case <-time.After(cfg.StartTimeout):
		e.Server.Stop()
		e.Close()
		cleanup()
		return nil, fmt.Errorf("etcd: not ready after %s (logs: %s)", cfg.StartTimeout, cfg.LogFile)
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
