package apiserver

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/version"
)

// Defaults used by NewConfig.
const (
	DefaultBindAddress = "127.0.0.1"
	DefaultPort        = 6443
	// DefaultMaxRequestBodyBytes is kube-apiserver's limit on a request body.
	DefaultMaxRequestBodyBytes = 3 * 1024 * 1024
	// DefaultMinRequestTimeout: a watch without timeoutSeconds lasts a random
	// time between this and twice this, as in kube-apiserver.
	DefaultMinRequestTimeout = 30 * time.Minute
	// DefaultNamespaceResync is how often terminating namespaces are revisited.
	DefaultNamespaceResync = time.Second
)

// Config configures a Server.
type Config struct {
	// Etcd is the storage client (required).
	Etcd *clientv3.Client
	// BindAddress and Port say where to listen; Port 0 picks a free port.
	BindAddress string
	Port        int
	// BookmarkInterval is how often idle watches that allow bookmarks get
	// one (0: storage's default, about a minute).
	BookmarkInterval time.Duration
	// MaxRequestBodyBytes limits request bodies (413 above).
	MaxRequestBodyBytes int64
	// MinRequestTimeout sets the default length of a watch.
	MinRequestTimeout time.Duration
	// NamespaceResync is the period of the namespace finalizer.
	NamespaceResync time.Duration
	// ErrorLog receives the HTTP server's own errors. Nil discards them:
	// nothing may reach the terminal.
	ErrorLog *log.Logger
	// Version is what /version reports.
	Version version.Info
}

// NewConfig returns a Config with defaults on etcd.
func NewConfig(etcd *clientv3.Client) *Config {
	return &Config{
		Etcd:                etcd,
		BindAddress:         DefaultBindAddress,
		Port:                DefaultPort,
		MaxRequestBodyBytes: DefaultMaxRequestBodyBytes,
		MinRequestTimeout:   DefaultMinRequestTimeout,
		NamespaceResync:     DefaultNamespaceResync,
		Version:             DefaultVersion(),
	}
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	switch {
	case c.Etcd == nil:
		return errors.New("apiserver: no etcd client")
	case net.ParseIP(c.BindAddress) == nil:
		return fmt.Errorf("apiserver: bind address %q is not an IP address", c.BindAddress)
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("apiserver: port %d out of range", c.Port)
	case c.MaxRequestBodyBytes <= 0:
		return errors.New("apiserver: request body limit must be positive")
	case c.MinRequestTimeout <= 0:
		return errors.New("apiserver: minimum request timeout must be positive")
	}
	return nil
}

func (c *Config) errorLog() *log.Logger {
	if c.ErrorLog != nil {
		return c.ErrorLog
	}
	return log.New(io.Discard, "", 0)
}
