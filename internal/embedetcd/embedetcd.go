package embedetcd

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.etcd.io/etcd/server/v3/etcdserver/api/v3client"
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
	// Loopback only, on ports the kernel picks: the API server uses the
	// in-process client, so nobody needs to know them.
	loopback := url.URL{Scheme: "http", Host: "127.0.0.1:0"}
	ecfg.ListenClientUrls = []url.URL{loopback}
	ecfg.AdvertiseClientUrls = []url.URL{loopback}
	ecfg.ListenPeerUrls = []url.URL{loopback}
	ecfg.AdvertisePeerUrls = []url.URL{loopback}
	ecfg.InitialCluster = ecfg.InitialClusterFromName(ecfg.Name)
	// Metrics and the HTTP gateway are not used.
	ecfg.EnableGRPCGateway = false

	e, err := embed.StartEtcd(ecfg)
	if err != nil {
		return nil, fmt.Errorf("etcd: start: %w", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return nil, fmt.Errorf("etcd: %w", err)
	case <-time.After(cfg.StartTimeout):
		e.Server.Stop()
		e.Close()
		return nil, fmt.Errorf("etcd: not ready after %s (logs: %s)", cfg.StartTimeout, cfg.LogFile)
	}
	return &Server{etcd: e, client: v3client.New(e.Server)}, nil
}

// Client returns the in-process client. It is valid until Close and safe for
// concurrent use.
func (s *Server) Client() *clientv3.Client { return s.client }

// Close stops the member. It waits for in-flight requests and is safe to call
// more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		// The in-process client's Close only cancels its context and
		// reports that as an error; there is nothing to act on.
		_ = s.client.Close()
		s.etcd.Close()
	})
}
