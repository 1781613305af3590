package kubelet

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// DefaultServingAddress is where a kubelet's server listens: loopback, as
// every kubesim listener.
const DefaultServingAddress = "127.0.0.1"

// ServingConfig is how a kubelet serves its own HTTPS API, as a real
// kubelet serves port 10250 to the API server (kubectl logs reaches the
// container's log through it). kubesim's kubelets all run in one process
// on one machine, so each listens on a port of its own on loopback and
// advertises that port in its Node's status.daemonEndpoints.
type ServingConfig struct {
	// BindAddress and Port say where to listen (Port 0: any free port).
	BindAddress string
	Port        int
	// Cert is the kubelet's serving certificate (its node name and
	// addresses), signed by a CA the API server trusts.
	Cert tls.Certificate
	// IssueCert, when Cert is empty, makes the certificate on the
	// server's first TLS handshake (a node nobody asks for a log never
	// needs one: thousands of hollow nodes start without signing
	// thousands of certificates).
	IssueCert func() (tls.Certificate, error)
	// ClientCAs verifies client certificates; a client must present one.
	ClientCAs *x509.CertPool
	// AllowedUsers are the client certificate names (CN) that may use the
	// server: the API server's kubelet client. A real kubelet asks the
	// API server (a SubjectAccessReview of nodes/proxy); kubesim's checks
	// the name against this list.
	AllowedUsers []string
	// ErrorLog receives the HTTP server's errors; nil discards them.
	ErrorLog *log.Logger
}

func (c *ServingConfig) validate() error {
	switch {
	case len(c.Cert.Certificate) == 0 && c.IssueCert == nil:
		return errors.New("kubelet: serving: no certificate")
	case c.ClientCAs == nil:
		return errors.New("kubelet: serving: no client CA")
	case c.Port < 0 || c.Port > 65535:
		return fmt.Errorf("kubelet: serving: port %d out of range", c.Port)
	case c.BindAddress != "" && net.ParseIP(c.BindAddress) == nil:
		return fmt.Errorf("kubelet: serving: bind address %q is not an IP address", c.BindAddress)
	}
	return nil
}

// kubeletServer is a kubelet's listener and what it serves.
type kubeletServer struct {
	cfg ServingConfig
	ln  net.Listener
}

// listen binds the server's listener.
func listen(cfg *ServingConfig) (*kubeletServer, error) {
	addr := cfg.BindAddress
	if addr == "" {
		addr = DefaultServingAddress
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(addr, strconv.Itoa(cfg.Port)))
	if err != nil {
		return nil, fmt.Errorf("kubelet: listen: %w", err)
	}
	return &kubeletServer{cfg: *cfg, ln: ln}, nil
}

// certificate returns the TLS config's GetCertificate: Cert, or the one
// IssueCert makes on the first handshake (and again after a failure).
func (s *kubeletServer) certificate() func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if len(s.cfg.Cert.Certificate) > 0 || s.cfg.IssueCert == nil {
		cert := s.cfg.Cert
		return func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	var mu sync.Mutex
	var issued *tls.Certificate
	return func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		mu.Lock()
		defer mu.Unlock()
		if issued == nil {
			cert, err := s.cfg.IssueCert()
			if err != nil {
				return nil, fmt.Errorf("kubelet: serving certificate: %w", err)
			}
			issued = &cert
		}
		return issued, nil
	}
}

// port is the port the server listens on.
func (s *kubeletServer) port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// serve serves h until ctx is done; then it closes every connection (a
// log followed ends) and returns once nothing is served any more.
func (s *kubeletServer) serve(ctx context.Context, h http.Handler) {
	s.serveTLS(ctx, h, s.certificate())
}

// serveTLS is serve with the certificates of getCert.
func (s *kubeletServer) serveTLS(ctx context.Context, h http.Handler, getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)) {
	errorLog := s.cfg.ErrorLog
	if errorLog == nil {
		errorLog = log.New(io.Discard, "", 0)
	}
	srv := &http.Server{
		Handler:     s.authenticated(h),
		ErrorLog:    errorLog,
		BaseContext: func(net.Listener) context.Context { return ctx },
		TLSConfig: &tls.Config{
			GetCertificate: getCert,
			ClientCAs:      s.cfg.ClientCAs,
			ClientAuth:     tls.RequireAndVerifyClientCert,
			MinVersion:     tls.VersionTLS12,
			NextProtos:     []string{"http/1.1"},
		},
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-ctx.Done()
		_ = srv.Close()
	}()
	_ = srv.Serve(tls.NewListener(s.ln, srv.TLSConfig))
	wg.Wait()
}

// authenticated lets through the requests of the allowed users, as the
// kubelet's authorization filter: no verified client certificate is 401,
// another user 403 with the kubelet's message.
func (s *kubeletServer) authenticated(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 || len(r.TLS.VerifiedChains[0]) == 0 {
			writeText(w, http.StatusUnauthorized, "Unauthorized")
			return
		}
		user := r.TLS.VerifiedChains[0][0].Subject.CommonName
		if !slices.Contains(s.cfg.AllowedUsers, user) {
			writeText(w, http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=nodes, subresource(s)=[proxy])\n", user, apiVerb(r.Method)))
			return
		}
		h.ServeHTTP(w, r)
	})
}

// apiVerb is the verb the kubelet authorizes an HTTP method as.
func apiVerb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return "get"
}

// writeText answers with a plain text body, as the kubelet's handlers
// write their errors (go-restful's WriteError: the message as it is).
func writeText(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	_, _ = io.WriteString(w, msg)
}

// handler is what a kubelet serves: /containerLogs and /healthz.
func (k *Kubelet) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", k.serveContainerLogs)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { writeText(w, http.StatusOK, "ok") })
	return mux
}

// podByName returns the pod the kubelet's informer (or its hollow
// host's) holds, if any.
func (k *Kubelet) podByName(namespace, name string) (*corev1.Pod, bool) {
	if h := k.cfg.Hollow; h != nil {
		return h.pod(k.cfg.Node.Name, namespace, name)
	}
	k.mu.Lock()
	idx := k.pods
	k.mu.Unlock()
	if idx == nil {
		return nil, false
	}
	obj, ok, err := idx.GetByKey(namespace + "/" + name)
	if err != nil || !ok {
		return nil, false
	}
	pod, ok := obj.(*corev1.Pod)
	return pod, ok
}

// ServingPort is the port the kubelet's server listens on (its hollow
// host's shared one, for a hollow kubelet), 0 without one.
func (k *Kubelet) ServingPort() int {
	if k.srv == nil {
		if k.cfg.Serving != nil && k.cfg.Hollow != nil {
			return k.cfg.Hollow.servingPort()
		}
		return 0
	}
	return k.srv.port()
}

// Close releases the server's listener of a kubelet that was never Run
// (Run closes it itself).
func (k *Kubelet) Close() error {
	if k.srv == nil || k.started.Load() {
		return nil
	}
	return k.srv.ln.Close()
}

// endpointPort is status.daemonEndpoints.kubeletEndpoint.port: the
// server's port, or KubeletPort without one.
func (k *Kubelet) endpointPort() int32 {
	if p := k.ServingPort(); p != 0 {
		return int32(p)
	}
	return KubeletPort
}
