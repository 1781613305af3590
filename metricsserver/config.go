package metricsserver

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"log"
	"time"

	"k8s.io/client-go/kubernetes"
)

// Defaults used by NewConfig.
const (
	DefaultBindAddress = "127.0.0.1"
	// DefaultAllowedName is the CN of the aggregator's proxy client
	// certificate, as kubeadm names it (front-proxy-client).
	DefaultAllowedName = "front-proxy-client"
	// ServiceName is the name the aggregator verifies the serving
	// certificate for: <service>.<namespace>.svc.
	ServiceName = "metrics-server.kube-system.svc"
)

// Config configures a Server.
type Config struct {
	// Client reads nodes and pods (list and watch).
	Client kubernetes.Interface
	// BindAddress and Port say where to listen (Port 0: a free port).
	BindAddress string
	Port        int
	// ServingCert is the serving certificate, for ServiceName.
	ServingCert tls.Certificate
	// RequestHeaderCA verifies the client certificate of the front proxy
	// (the aggregator), metrics-server's --requestheader-client-ca-file.
	RequestHeaderCA *x509.CertPool
	// AllowedNames are the CNs a front-proxy certificate may have
	// (--requestheader-allowed-names); empty allows any the CA signed.
	AllowedNames []string
	// Now is the clock of the samples' timestamps; nil: time.Now.
	Now func() time.Time
	// ErrorLog receives the HTTP server's own errors; nil discards them.
	ErrorLog *log.Logger
}

// NewConfig returns the defaults on client: loopback, a free port, the
// front-proxy-client name allowed.
func NewConfig(client kubernetes.Interface) *Config {
	return &Config{Client: client, BindAddress: DefaultBindAddress, AllowedNames: []string{DefaultAllowedName}, Now: time.Now}
}

// Validate reports every problem with c at once.
func (c *Config) Validate() error {
	var errs []error
	if c.Client == nil {
		errs = append(errs, errors.New("metricsserver: Client is required"))
	}
	if len(c.ServingCert.Certificate) == 0 {
		errs = append(errs, errors.New("metricsserver: ServingCert is required"))
	}
	if c.RequestHeaderCA == nil {
		errs = append(errs, errors.New("metricsserver: RequestHeaderCA is required"))
	}
	if c.Port < 0 || c.Port > 65535 {
		errs = append(errs, errors.New("metricsserver: Port must be 0..65535"))
	}
	return errors.Join(errs...)
}

func (c *Config) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}
