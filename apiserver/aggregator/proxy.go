package aggregator

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"k8s.io/client-go/transport"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// User is who the aggregator's filters authenticated, as the proxy tells
// the backend in the X-Remote-* headers.
type User struct {
	Name   string
	UID    string
	Groups []string
	Extra  map[string][]string
}

// Hop is what one server of the delegation chain did with a request
// ("delegated", "proxied", "unavailable" for a 503, "failed" for a 500),
// for the request's trace.
type Hop func(r *http.Request, outcome, text string)

// ProxyConfig is what the proxy needs besides the APIService.
type ProxyConfig struct {
	// ClientCert is the aggregator's proxy client certificate, presented
	// to every backend. Nil presents none.
	ClientCert *tls.Certificate
	// Resolver finds a backend's address.
	Resolver Resolver
	// UserFrom returns the request's authenticated user.
	UserFrom func(*http.Request) (User, bool)
	// Hop records the aggregator's hop in the request's trace; nil
	// records nothing.
	Hop Hop
}

// discoveryTimeout bounds a proxied discovery request (GET
// /apis/<group>/<version>), as upstream bounds it, so that one slow
// backend does not stall every client's discovery.
const discoveryTimeout = 5 * time.Second

// proxyHandler serves the requests of one APIService: a local one goes to
// the delegate (kube-apiserver), a remote one to its backend, as
// upstream's proxyHandler. Its fields are set once; a changed APIService
// gets a new proxyHandler.
type proxyHandler struct {
	cfg       *ProxyConfig
	delegate  http.Handler
	service   *apiregv1.APIService
	available bool
	// transport is the backend's, built from the APIService; err is why
	// it could not be (answered 500, as upstream).
	transport *http.Transport
	err       error
}

func newProxyHandler(cfg *ProxyConfig, delegate http.Handler, a *apiregv1.APIService) *proxyHandler {
	p := &proxyHandler{cfg: cfg, delegate: delegate, service: a,
		available: helper.IsAPIServiceConditionTrue(a, apiregv1.Available)}
	if a.Spec.Service != nil {
		p.transport, p.err = backendTransport(a, cfg.ClientCert)
	}
	return p
}

func (p *proxyHandler) hop(r *http.Request, outcome, text string) {
	if p.cfg.Hop != nil {
		p.cfg.Hop(r, outcome, text)
	}
}

// ServeHTTP implements http.Handler.
func (p *proxyHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := p.service
	if a.Spec.Service == nil {
		p.hop(r, "delegated", fmt.Sprintf("APIService %s is Local: delegated to kube-apiserver", a.Name))
		p.delegate.ServeHTTP(w, r)
		return
	}
	if !p.available {
		p.hop(r, "unavailable", fmt.Sprintf("APIService %s is not Available: 503 service unavailable", a.Name))
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	if p.err != nil {
		p.hop(r, "failed", fmt.Sprintf("APIService %s: %v", a.Name, p.err))
		http.Error(w, p.err.Error(), http.StatusInternalServerError)
		return
	}
	user, ok := p.cfg.UserFrom(r)
	if !ok {
		http.Error(w, "missing user", http.StatusInternalServerError)
		return
	}
	loc, err := p.cfg.Resolver.ResolveEndpoint(a.Spec.Service.Namespace, a.Spec.Service.Name, port(a.Spec.Service))
	if err != nil {
		p.hop(r, "unavailable", fmt.Sprintf("APIService %s: %v: 503 service unavailable", a.Name, err))
		http.Error(w, "service unavailable", http.StatusServiceUnavailable)
		return
	}
	loc.Path, loc.RawQuery = r.URL.Path, r.URL.Query().Encode()
	out, cancel := proxyRequest(r, loc, user)
	defer cancel()
	p.hop(r, "proxied", fmt.Sprintf("APIService %s → %s (service %s/%s found in kubesim's Service table, which stands in for its endpoints; TLS to %s, as user %q)",
		a.Name, loc, a.Spec.Service.Namespace, a.Spec.Service.Name, ServerName(a.Spec.Service), user.Name))
	rp := &httputil.ReverseProxy{
		Rewrite:       func(*httputil.ProxyRequest) {},
		Transport:     p.transport,
		FlushInterval: -1, // watches: every chunk as it comes
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, err error) {
			// As upstream's responder: the error, as text, with 503.
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
		},
	}
	rp.ServeHTTP(w, out)
}

// port is the service reference's port (443 when unset).
func port(ref *apiregv1.ServiceReference) int32 {
	if ref.Port == nil {
		return 443
	}
	return *ref.Port
}

// proxyRequest is r addressed to loc, as the backend gets it: the caller's
// credentials and impersonation headers removed (the aggregator's filters
// consumed them), the user named in X-Remote-User, X-Remote-Uid,
// X-Remote-Group and X-Remote-Extra-*, and a discovery request bounded by
// discoveryTimeout. The Audit-ID header the chain set goes along.
func proxyRequest(r *http.Request, loc *url.URL, u User) (*http.Request, context.CancelFunc) {
	ctx, cancel := r.Context(), context.CancelFunc(func() {})
	if isDiscovery(r) {
		ctx, cancel = context.WithTimeout(ctx, discoveryTimeout)
	}
	out := r.Clone(ctx)
	out.URL, out.Host, out.RequestURI = loc, loc.Host, ""
	out.Header.Del("Authorization")
	for k := range out.Header {
		if strings.HasPrefix(k, "Impersonate-") {
			out.Header.Del(k)
		}
	}
	transport.SetAuthProxyHeaders(out, u.Name, u.UID, u.Groups, u.Extra)
	return out, cancel
}

// isDiscovery reports whether r asks for a group-version's resource list.
func isDiscovery(r *http.Request) bool {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	return r.Method == http.MethodGet && len(parts) == 3 && parts[0] == "apis"
}
