package aggregator

import (
	"bytes"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	"k8s.io/utils/ptr"
)

// Handler routes a request by the APIService of its path, as upstream's
// aggregator registers one proxy handler per APIService: /apis/<g>/<v>
// and below go to the APIService "<v>.<g>" ("v1." takes /api and below),
// which delegates (local) or proxies (remote); a path no APIService claims
// is delegated. AddAPIService and RemoveAPIService (the registration
// controller's) may run concurrently with ServeHTTP.
type Handler struct {
	cfg      ProxyConfig
	delegate http.Handler

	mu       sync.RWMutex
	byPath   map[string]*proxyHandler // proxy path → handler
	services map[string]*apiregv1.APIService
}

// NewHandler returns a Handler with no APIService: everything is
// delegated until AddAPIService is called.
func NewHandler(delegate http.Handler, cfg ProxyConfig) *Handler {
	return &Handler{cfg: cfg, delegate: delegate, byPath: map[string]*proxyHandler{}, services: map[string]*apiregv1.APIService{}}
}

// proxyPath is the path prefix an APIService serves.
func proxyPath(a *apiregv1.APIService) string {
	if a.Name == "v1." {
		return "/api"
	}
	return "/apis/" + a.Spec.Group + "/" + a.Spec.Version
}

// AddAPIService makes a (a new one or a change) serve its path.
// A version older than the one served (an informer's event that arrives
// after the availability controller passed on its own write) is ignored.
func (h *Handler) AddAPIService(a *apiregv1.APIService) {
	p := newProxyHandler(&h.cfg, h.delegate, a.DeepCopy())
	h.mu.Lock()
	defer h.mu.Unlock()
	if cur, ok := h.services[a.Name]; ok && cur.UID == a.UID && olderThan(a.ResourceVersion, cur.ResourceVersion) {
		return
	}
	if old, ok := h.byPath[proxyPath(a)]; ok && old.transport != nil {
		if p.transport != nil && sameBackend(old.service, p.service) {
			// As upstream's transport cache: a status change keeps the
			// connections (a new transport would leave the old one's busy
			// connections open, idle, until their timeout).
			p.transport = old.transport
		} else {
			old.transport.CloseIdleConnections()
		}
	}
	h.byPath[proxyPath(a)] = p
	h.services[a.Name] = p.service
}

// RemoveAPIService stops serving the APIService called name.
func (h *Handler) RemoveAPIService(name string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	a, ok := h.services[name]
	if !ok {
		return
	}
	if p := h.byPath[proxyPath(a)]; p != nil && p.transport != nil {
		p.transport.CloseIdleConnections()
	}
	delete(h.byPath, proxyPath(a))
	delete(h.services, name)
}

// sameBackend reports whether a and b are reached the same way: the
// inputs of backendTransport.
func sameBackend(a, b *apiregv1.APIService) bool {
	as, bs := a.Spec.Service, b.Spec.Service
	return as != nil && bs != nil && ptr.Equal(as.Port, bs.Port) && as.Namespace == bs.Namespace && as.Name == bs.Name &&
		a.Spec.InsecureSkipTLSVerify == b.Spec.InsecureSkipTLSVerify && bytes.Equal(a.Spec.CABundle, b.Spec.CABundle)
}

// CloseIdleConnections closes the idle connections to every remote
// APIService's backend, as the exit of kube-apiserver's process would
// (Run calls it once it serves no more): the backend's own shutdown then
// need not wait for them.
func (h *Handler) CloseIdleConnections() {
	h.mu.RLock()
	defer h.mu.RUnlock()
	for _, p := range h.byPath {
		if p.transport != nil {
			p.transport.CloseIdleConnections()
		}
	}
}

// APIServices returns the APIServices being served, sorted by name. The
// caller must not modify them.
func (h *Handler) APIServices() []*apiregv1.APIService {
	h.mu.RLock()
	defer h.mu.RUnlock()
	out := make([]*apiregv1.APIService, 0, len(h.services))
	for _, a := range h.services {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// lookup returns the handler of the APIService claiming path, or nil.
func (h *Handler) lookup(path string) http.Handler {
	var prefix string
	switch parts := strings.SplitN(strings.TrimPrefix(path, "/"), "/", 4); {
	case parts[0] == "api":
		prefix = "/api"
	case parts[0] == "apis" && len(parts) >= 3:
		prefix = "/apis/" + parts[1] + "/" + parts[2]
	default:
		return nil
	}
	h.mu.RLock()
	defer h.mu.RUnlock()
	if p, ok := h.byPath[prefix]; ok {
		return p
	}
	return nil
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := h.lookup(r.URL.Path); p != nil {
		p.ServeHTTP(w, r)
		return
	}
	if h.cfg.Hop != nil {
		h.cfg.Hop(r, "delegated", "no APIService claims "+r.URL.Path+": delegated to kube-apiserver")
	}
	h.delegate.ServeHTTP(w, r)
}

// Backend returns a handler that proxies to the backend of the APIService
// called name whether or not it is Available (nil if it is not served or
// is local), for the aggregator's own discovery fetches: upstream's
// discovery manager, too, asks an unavailable backend.
func (h *Handler) Backend(name string) http.Handler {
	h.mu.RLock()
	a, ok := h.services[name]
	var p *proxyHandler
	if ok {
		p = h.byPath[proxyPath(a)]
	}
	h.mu.RUnlock()
	if p == nil || a.Spec.Service == nil {
		return nil
	}
	forced := *p
	forced.available = true
	return &forced
}

// available reports whether a is Available.
func available(a *apiregv1.APIService) bool {
	return helper.IsAPIServiceConditionTrue(a, apiregv1.Available)
}

// olderThan reports whether resourceVersion a is older than b (both
// etcd revisions; anything unparsable is not older).
func olderThan(a, b string) bool {
	x, errA := strconv.ParseUint(a, 10, 64)
	y, errB := strconv.ParseUint(b, 10, 64)
	return errA == nil && errB == nil && x < y
}
