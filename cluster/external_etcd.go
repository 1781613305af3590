package cluster

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"google.golang.org/grpc/connectivity"

	"github.com/kubesim/kubesim/internal/embedetcd"
)

// External etcd: kube-apiserver's client settings (storagebackend/factory
// etcd3.go): keep-alive pings every 30 s, a connection given up after 10 s
// without an answer.
const (
	etcdKeepaliveTime    = 30 * time.Second
	etcdKeepaliveTimeout = 10 * time.Second
)

// validateEtcd checks the external etcd options, as the flags spell them.
func (c *Config) validateEtcd() []error {
	var errs []error
	add := func(option string, value any, reason string) {
		errs = append(errs, &OptionError{Option: option, Value: value, Reason: reason})
	}
	for _, s := range c.EtcdServers {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Port() == "" || u.Path != "" {
			add("etcd-servers", s, "must list URLs of the form https://host:port")
		}
	}
	if c.APIServerOnly && len(c.EtcdServers) == 0 {
		add("etcd-servers", "", "is required with --apiserver-only (that API server shares the etcd cluster of the one running the components)")
	}
	if len(c.EtcdServers) == 0 {
		for _, f := range []struct{ option, value string }{{"etcd-cafile", c.EtcdCAFile}, {"etcd-certfile", c.EtcdCertFile}, {"etcd-keyfile", c.EtcdKeyFile}} {
			if f.value != "" {
				add(f.option, f.value, "is only used with --etcd-servers (the embedded etcd needs no certificates)")
			}
		}
		return errs
	}
	if (c.EtcdCertFile == "") != (c.EtcdKeyFile == "") {
		add("etcd-certfile", c.EtcdCertFile, "and --etcd-keyfile must be given together")
	}
	if c.EtcdDialTimeout < 0 {
		add("etcd-dial-timeout", c.EtcdDialTimeout, "must not be negative")
	}
	return errs
}

// connectExternalEtcd makes the client of the external etcd cluster, as
// kube-apiserver's storage factory does, and waits until its connection
// is ready, at most cfg.EtcdDialTimeout: kube-apiserver, too, gives up
// creating its storage then, and exits. The error names the endpoints
// and what the last attempt met.
func (c *Cluster) connectExternalEtcd(ctx context.Context, cfg *Config) error {
	tlsCfg, err := etcdClientTLS(cfg)
	if err != nil {
		return err
	}
	client, err := clientv3.New(clientv3.Config{
		Endpoints:            cfg.EtcdServers,
		TLS:                  tlsCfg,
		DialTimeout:          cfg.EtcdDialTimeout,
		DialKeepAliveTime:    etcdKeepaliveTime,
		DialKeepAliveTimeout: etcdKeepaliveTimeout,
		Logger:               c.etcdClientLogger(),
		MaxCallSendMsgSize:   int(embedetcd.DefaultMaxRequestBytes) + 1<<20,
		MaxCallRecvMsgSize:   math.MaxInt32,
	})
	if err != nil {
		return fmt.Errorf("cluster: etcd at %s: %w", strings.Join(cfg.EtcdServers, ","), err)
	}
	c.etcdClient = client
	if err := probeEtcd(ctx, client, cfg.EtcdDialTimeout); err != nil {
		return fmt.Errorf("cluster: etcd at %s did not answer a read within %s (%w); %s", strings.Join(cfg.EtcdServers, ","), cfg.EtcdDialTimeout, err, diagnoseEndpoints(cfg.EtcdServers, tlsCfg))
	}
	return nil
}

// diagnoseEndpoints says, for each server, what a TLS handshake with it
// meets now: "connection refused", a certificate the CA does not
// verify, or "handshake ok" (then the member is up but the cluster has
// no quorum).
func diagnoseEndpoints(servers []string, tlsCfg *tls.Config) string {
	var parts []string
	for _, s := range servers {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		d := &net.Dialer{Timeout: time.Second}
		var conn net.Conn
		if tlsCfg != nil {
			conn, err = tls.DialWithDialer(d, "tcp", u.Host, tlsCfg.Clone())
		} else {
			conn, err = d.Dial("tcp", u.Host)
		}
		if err != nil {
			parts = append(parts, fmt.Sprintf("%s: %v", s, err))
			continue
		}
		conn.Close()
		parts = append(parts, s+": handshake ok (up, but no quorum?)")
	}
	return strings.Join(parts, "; ")
}

// etcdClientTLS is the client's TLS configuration from the three files,
// or nil for http:// servers.
func etcdClientTLS(cfg *Config) (*tls.Config, error) {
	if !strings.HasPrefix(cfg.EtcdServers[0], "https://") {
		return nil, nil
	}
	info := transport.TLSInfo{CertFile: cfg.EtcdCertFile, KeyFile: cfg.EtcdKeyFile, TrustedCAFile: cfg.EtcdCAFile}
	tc, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster: etcd client TLS (--etcd-cafile, --etcd-certfile, --etcd-keyfile): %w", err)
	}
	return tc, nil
}

// probeEtcd waits until a read of the cluster succeeds (quorum answers),
// at most timeout; it returns the last read's error, with the state of
// the gRPC connection.
func probeEtcd(ctx context.Context, client *clientv3.Client, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		attempt, stop := context.WithTimeout(ctx, 2*time.Second)
		_, err := client.Get(attempt, "/registry/health", clientv3.WithCountOnly())
		stop()
		if err == nil {
			return nil
		}
		last = err
		select {
		case <-ctx.Done():
			state := connectivity.Shutdown
			if conn := client.ActiveConnection(); conn != nil {
				state = conn.GetState()
			}
			return fmt.Errorf("connection %s, last read: %w", strings.ToLower(state.String()), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// etcdClientLogger sends the etcd client's warnings and errors (retries,
// lost connections) to the API server's log file.
func (c *Cluster) etcdClientLogger() *zap.Logger {
	enc := zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig())
	return zap.New(zapcore.NewCore(enc, zapcore.AddSync(c.logSink), zapcore.WarnLevel)).Named("etcd-client")
}

// describeEtcd is the etcd startup step's detail.
func (c *Cluster) describeEtcd(cfg *Config) string {
	if len(cfg.EtcdServers) > 0 {
		return "external cluster at " + strings.Join(cfg.EtcdServers, ",") + " (connected; a read answered)"
	}
	return fmt.Sprintf("embedded member at %s, data in %s (kubesim's own step: kube-apiserver starts no etcd, it connects to --etcd-servers)",
		strings.Join(c.etcd.Client().Endpoints(), ","), filepath.Join(c.DataDir, "etcd"))
}

// EtcdClient returns the client the API server stores its objects with:
// the embedded member's, or the external cluster's. It is valid until
// Close.
func (c *Cluster) EtcdClient() *clientv3.Client { return c.etcdClient }
