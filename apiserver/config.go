package apiserver

import (
	"crypto/ecdsa"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/controlplane"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/storage"
	"github.com/kubesim/kubesim/internal/flow"
)

// The media types of Config.StorageMediaType (kube-apiserver's
// --storage-media-type), and kubesim's default.
const (
	StorageMediaTypeJSON     = registry.StorageMediaTypeJSON
	StorageMediaTypeProtobuf = registry.StorageMediaTypeProtobuf
	DefaultStorageMediaType  = registry.DefaultStorageMediaType
)

// ValidateStorageMediaType checks a --storage-media-type: "" (the
// default) or one of the two media types kubesim stores.
func ValidateStorageMediaType(mediaType string) error {
	return registry.ValidateStorageMediaType(mediaType)
}

// Defaults used by NewConfig.
const (
	DefaultBindAddress = "127.0.0.1"
	DefaultPort        = 6443
	// DefaultMaxRequestBodyBytes is kube-apiserver's limit on a request body.
	DefaultMaxRequestBodyBytes = 3 * 1024 * 1024
	// DefaultMinRequestTimeout: a watch without timeoutSeconds lasts a random
	// time between this and twice this, as in kube-apiserver.
	DefaultMinRequestTimeout = 30 * time.Minute
	// DefaultRequestTimeout ends non-watch requests, as kube-apiserver's
	// --request-timeout does.
	DefaultRequestTimeout = 60 * time.Second
	// DefaultMaxRequestsInFlight and DefaultMaxMutatingRequestsInFlight are
	// kube-apiserver's limits on concurrent read-only and mutating requests.
	DefaultMaxRequestsInFlight         = 400
	DefaultMaxMutatingRequestsInFlight = 200
	// DefaultIdleTimeout closes a connection that has carried no request
	// for this long (HTTP/1.1 keep-alive and HTTP/2 alike), as
	// kube-apiserver's HTTP server does; it matches the keep-alive of
	// http.DefaultTransport. A watch in progress is not idle.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultReadHeaderTimeout bounds the TLS handshake and the reading
	// of a request's headers, as in kube-apiserver.
	DefaultReadHeaderTimeout = 32 * time.Second
	// DefaultHTTP2MaxStreamsPerConnection is how many concurrent streams
	// a client may open on one HTTP/2 connection: kube-apiserver's value
	// when --http2-max-streams-per-connection is not set.
	DefaultHTTP2MaxStreamsPerConnection = 100
	// DefaultCompactionInterval is kube-apiserver's
	// --etcd-compaction-interval: 5 minutes.
	DefaultCompactionInterval = storage.DefaultCompactionInterval
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
	// WatchCache sizes the watch caches' history (the zero value: as
	// kube-apiserver's, 100 to 102,400 changes, at least 75 s of them).
	WatchCache storage.WindowConfig
	// StorageMediaType is the media type the built-in resources are
	// stored in etcd as (kube-apiserver's --storage-media-type, whose
	// default is protobuf): registry.StorageMediaTypeJSON (NewConfig's
	// default, so that lessons can show etcd's values as they are) or
	// registry.StorageMediaTypeProtobuf. Values of either are read
	// whatever it says; custom resources are stored as JSON always.
	StorageMediaType string
	// CompactionInterval is how often etcd's history is compacted, to
	// the revision of the previous compaction's tick, so that about one
	// interval of history is kept (kube-apiserver's
	// --etcd-compaction-interval; 0 disables compaction; wall time, not
	// scaled by any speed). See storage.Compactor.
	CompactionInterval time.Duration
	// MaxRequestBodyBytes limits request bodies (413 above).
	MaxRequestBodyBytes int64
	// MinRequestTimeout sets the default length of a watch.
	MinRequestTimeout time.Duration
	// ErrorLog receives the HTTP server's own errors. Nil discards them:
	// nothing may reach the terminal.
	ErrorLog *log.Logger
	// Version is what /version reports.
	Version version.Info
	// RequestTimeout ends non-watch requests (504).
	RequestTimeout time.Duration
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight limit concurrent
	// non-watch requests (429 past them).
	MaxRequestsInFlight         int
	MaxMutatingRequestsInFlight int
	// IdleTimeout closes connections that carry no request (see
	// DefaultIdleTimeout); ReadHeaderTimeout bounds the TLS handshake and
	// a request's headers.
	IdleTimeout       time.Duration
	ReadHeaderTimeout time.Duration
	// HTTP2MaxStreamsPerConnection limits the concurrent streams of one
	// HTTP/2 connection; the per-connection receive buffer is sized
	// from it, as in kube-apiserver.
	HTTP2MaxStreamsPerConnection int

	// TLS, when set, makes the server speak HTTPS (with HTTP/2) and
	// verify client certificates against its ClientCAs.
	TLS *tls.Config
	// Authenticator identifies the caller of each request (required).
	// Service account tokens the server issued are accepted besides.
	Authenticator auth.Authenticator
	// ServiceAccountSigningKey signs service account tokens
	// (serviceaccounts/token) and verifies them, as kube-apiserver's
	// --service-account-signing-key-file. Nil: a key made at New, so
	// tokens do not outlive the process.
	ServiceAccountSigningKey *ecdsa.PrivateKey
	// ServiceAccountIssuer is the iss claim of those tokens, and the
	// audience the server accepts (--service-account-issuer,
	// --api-audiences); empty means DefaultServiceAccountIssuer.
	ServiceAccountIssuer string
	// Recorder receives the trace of every request, every write of a pod
	// to etcd, and the stages of the creation of the pods created through
	// this server (see podTracker). Nil records nothing.
	Recorder *flow.Recorder
	// PodStages, when set, is shared with the other API servers of the
	// cluster in this process, so that the stages of a pod created
	// through one are recorded by whichever serves its later requests
	// and watches; nil: this server's own (the pods created through it).
	PodStages *PodStages
	// Gate holds a pod's creation at the API server's points:
	// flow.PointBeforePersist and flow.PointBeforeStatusPersist inside the
	// request (whose timeout does not count the hold),
	// flow.PointBeforeSchedulerWatch and flow.PointBeforeKubeletWatch
	// before the watch frame is written (the watch stays open). Each
	// point holds a pod at most once. Nil lets everything pass.
	Gate *flow.Gate
	// AuditLog receives audit.k8s.io/v1 events as JSON lines, one Write
	// call per line, made before the request goes on (kube-apiserver's
	// blocking mode): a request's ResponseComplete event is written when
	// its handler returns, before the response it wrote is sent (the
	// request timeout holds non-watch responses until then). A failed
	// write is reported to ErrorLog and does not fail the request. Nil:
	// no audit log. For a file, use audit.OpenLog, or audit.OpenRotatingLog
	// to rotate it as kube-apiserver's --audit-log-max* flags do.
	AuditLog io.Writer
	// Aggregator configures the aggregator's proxy to remote APIServices
	// and their availability checks (aggregator_config.go; package
	// aggregatorserver uses it).
	Aggregator AggregatorConfig
	// Kubelet says how pods/log reaches the kubelets (kubelet_config.go).
	Kubelet KubeletClientConfig
	// ComponentRunning reports whether the cluster runs the component
	// ("scheduler", "controller-manager") that componentstatuses reports
	// on. Nil: neither runs, as for a kube-apiserver without them.
	ComponentRunning func(component string) bool
	// DisableAdmissionPlugins names admission plugins not to run
	// (kube-apiserver's --disable-admission-plugins; admit.go lists them).
	// Upstream's integration tests disable ServiceAccount when no
	// controller manager makes the default accounts; so do kubesim's.
	DisableAdmissionPlugins []string

	// EndpointReconcilerInterval is how often this server renews its key
	// in /registry/masterleases and reconciles the kubernetes Endpoints
	// (0: controlplane.DefaultEndpointReconcilerInterval, upstream's 10 s);
	// EndpointReconcilerTTL is how long that key outlives its last
	// renewal (0: controlplane.DefaultEndpointReconcilerTTL, upstream's
	// 15 s; whole seconds). See controlplane.LeaseEndpointReconciler.
	EndpointReconcilerInterval time.Duration
	EndpointReconcilerTTL      time.Duration
	// IdentityLease configures this server's identity Lease in
	// kube-system and its garbage collector (the zero value: upstream's
	// durations). See controlplane.IdentityLeaseController and
	// controlplane.APIServerLeaseGC.
	IdentityLease controlplane.IdentityLeaseConfig
}

// NewConfig returns a Config with defaults on etcd.
func NewConfig(etcd *clientv3.Client) *Config {
	return &Config{
		Etcd:                etcd,
		BindAddress:         DefaultBindAddress,
		Port:                DefaultPort,
		CompactionInterval:  DefaultCompactionInterval,
		MaxRequestBodyBytes: DefaultMaxRequestBodyBytes,
		MinRequestTimeout:   DefaultMinRequestTimeout,
		Version:             DefaultVersion(),
		StorageMediaType:    DefaultStorageMediaType,
		RequestTimeout:      DefaultRequestTimeout,

		MaxRequestsInFlight:         DefaultMaxRequestsInFlight,
		MaxMutatingRequestsInFlight: DefaultMaxMutatingRequestsInFlight,

		IdleTimeout:                  DefaultIdleTimeout,
		ReadHeaderTimeout:            DefaultReadHeaderTimeout,
		HTTP2MaxStreamsPerConnection: DefaultHTTP2MaxStreamsPerConnection,
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
	case c.CompactionInterval < 0:
		return errors.New("apiserver: etcd compaction interval must not be negative")
	case c.MaxRequestBodyBytes <= 0:
		return errors.New("apiserver: request body limit must be positive")
	case c.MinRequestTimeout <= 0:
		return errors.New("apiserver: minimum request timeout must be positive")
	case c.RequestTimeout <= 0:
		return errors.New("apiserver: request timeout must be positive")
	case c.MaxRequestsInFlight <= 0 || c.MaxMutatingRequestsInFlight <= 0:
		return errors.New("apiserver: in-flight limits must be positive")
	case c.IdleTimeout <= 0 || c.ReadHeaderTimeout <= 0:
		return errors.New("apiserver: idle and read-header timeouts must be positive")
	case c.HTTP2MaxStreamsPerConnection <= 0:
		return errors.New("apiserver: HTTP/2 streams per connection must be positive")
	case c.Authenticator == nil:
		return errors.New("apiserver: no authenticator")
	case c.EndpointReconcilerInterval < 0 || c.EndpointReconcilerTTL < 0:
		return errors.New("apiserver: endpoint reconciler interval and TTL must not be negative")
	case c.EndpointReconcilerTTL != 0 && c.EndpointReconcilerTTL < time.Second:
		return fmt.Errorf("apiserver: endpoint reconciler TTL %s is below one second, etcd's smallest lease", c.EndpointReconcilerTTL)
	}
	if err := c.IdentityLease.Validate(); err != nil {
		return err
	}
	if err := registry.ValidateStorageMediaType(c.StorageMediaType); err != nil {
		return fmt.Errorf("apiserver: %w", err)
	}
	return validateAdmissionPlugins(c.DisableAdmissionPlugins)
}

// DefaultServiceAccountIssuer is the issuer kubeadm configures.
const DefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local"

func (c *Config) serviceAccountIssuer() string {
	if c.ServiceAccountIssuer != "" {
		return c.ServiceAccountIssuer
	}
	return DefaultServiceAccountIssuer
}

// ReconcilerInterval and ReconcilerTTL are EndpointReconcilerInterval and
// EndpointReconcilerTTL, or upstream's periods when they are not set.
func (c *Config) ReconcilerInterval() time.Duration {
	if c.EndpointReconcilerInterval > 0 {
		return c.EndpointReconcilerInterval
	}
	return controlplane.DefaultEndpointReconcilerInterval
}

func (c *Config) ReconcilerTTL() time.Duration {
	if c.EndpointReconcilerTTL > 0 {
		return c.EndpointReconcilerTTL
	}
	return controlplane.DefaultEndpointReconcilerTTL
}

func (c *Config) errorLog() *log.Logger {
	if c.ErrorLog != nil {
		return c.ErrorLog
	}
	return log.New(io.Discard, "", 0)
}
