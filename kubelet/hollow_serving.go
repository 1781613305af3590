package kubelet

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"sync"
)

// hollowServing is the one HTTPS server of a host's hollow kubelets: a
// hollow kubelet does not listen on a port of its own (thousands of
// nodes would take thousands of file descriptors), but advertises this
// server's port. The API server dials a kubelet by its Node's hostname
// (the node's name), so each TLS handshake names the node (SNI): the
// server answers with that kubelet's certificate and hands the request
// to that kubelet's handler, as if it had its own port.
type hollowServing struct {
	srv *kubeletServer // the shared listener and its ServingConfig (no certificate of its own)

	mu    sync.Mutex
	certs map[string]*tls.Certificate // by node, issued on the first handshake naming it
}

// ServeHollow makes the host's hollow kubelets share one server on cfg's
// address: cfg holds what they share (client CAs, allowed users, error
// log); each kubelet's own Config.Serving gives its certificate
// (Cert or IssueCert). The server runs with the host (Run). Call it
// before the first hollow kubelet is made, at most once.
func (h *HollowHost) ServeHollow(cfg ServingConfig) error {
	if h.serving != nil {
		return errors.New("kubelet: the hollow host already serves")
	}
	if cfg.ClientCAs == nil {
		return errors.New("kubelet: hollow serving: no client CA")
	}
	cfg.Port = 0
	srv, err := listen(&cfg)
	if err != nil {
		return err
	}
	h.serving = &hollowServing{srv: srv, certs: map[string]*tls.Certificate{}}
	return nil
}

// servingPort is the shared server's port, 0 when the host has none.
func (h *HollowHost) servingPort() int {
	if h.serving == nil {
		return 0
	}
	return h.serving.srv.port()
}

// serveHollow serves the hollow kubelets until ctx is done.
func (h *HollowHost) serveHollow(ctx context.Context) {
	hs := h.serving
	hs.srv.serveTLS(ctx, http.HandlerFunc(h.routeToKubelet), hs.certificate(h))
}

// certificate is the shared server's GetCertificate: the certificate of
// the kubelet the handshake names, made once.
func (hs *hollowServing) certificate(h *HollowHost) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		k := h.kubelet(hello.ServerName)
		if k == nil || k.cfg.Serving == nil {
			return nil, fmt.Errorf("kubelet: no hollow kubelet serves node %q here", hello.ServerName)
		}
		hs.mu.Lock()
		defer hs.mu.Unlock()
		if c := hs.certs[hello.ServerName]; c != nil {
			return c, nil
		}
		cert := k.cfg.Serving.Cert
		if len(cert.Certificate) == 0 {
			var err error
			if cert, err = k.cfg.Serving.IssueCert(); err != nil {
				return nil, fmt.Errorf("kubelet: serving certificate of %s: %w", hello.ServerName, err)
			}
		}
		hs.certs[hello.ServerName] = &cert
		return &cert, nil
	}
}

// routeToKubelet hands a request to the kubelet of the node its TLS
// handshake named.
func (h *HollowHost) routeToKubelet(w http.ResponseWriter, r *http.Request) {
	var k *Kubelet
	if r.TLS != nil {
		k = h.kubelet(r.TLS.ServerName)
	}
	if k == nil {
		writeText(w, http.StatusNotFound, "no kubelet of that node here\n")
		return
	}
	k.handler().ServeHTTP(w, r)
}

// kubelet is the attached kubelet of node, or nil.
func (h *HollowHost) kubelet(node string) *Kubelet {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.kubelets[node]
}
