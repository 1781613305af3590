package aggregator

import (
	"fmt"
	"net/url"
	"sync"
)

// Resolver finds where a Service's endpoints listen, as upstream's
// ServiceResolver does.
type Resolver interface {
	// ResolveEndpoint returns the https URL (host and port, no path) of
	// one endpoint of service namespace/name on port, or an error.
	ResolveEndpoint(namespace, name string, port int32) (*url.URL, error)
}

// StaticResolver is kubesim's stand-in for Service resolution: a table
// from namespace/name to host:port that the assembler fills (the metrics
// server's loopback address). kubesim has no Services nor EndpointSlices
// yet, so where kube-aggregator resolves a Service to the address of one
// of its ready endpoints, kubesim looks the Service up here; the port of
// the APIService's service reference is not used. It is safe for
// concurrent use; the zero value is not: use NewStaticResolver.
type StaticResolver struct {
	mu        sync.RWMutex
	hosts     map[string]string
	listeners []func(namespace, name string)
}

// ChangeNotifier is a Resolver that says when a Service's address
// changes, as upstream's availability controller learns it from its
// Service and EndpointSlice informers.
type ChangeNotifier interface {
	// OnChange registers fn, called (outside any lock) after the
	// address of namespace/name changed or went away.
	OnChange(fn func(namespace, name string))
}

// NewStaticResolver returns an empty table.
func NewStaticResolver() *StaticResolver { return &StaticResolver{hosts: map[string]string{}} }

// Set makes namespace/name resolve to hostport ("127.0.0.1:43121").
func (r *StaticResolver) Set(namespace, name, hostport string) {
	r.mu.Lock()
	r.hosts[namespace+"/"+name] = hostport
	r.mu.Unlock()
	r.notify(namespace, name)
}

// Delete removes namespace/name from the table.
func (r *StaticResolver) Delete(namespace, name string) {
	r.mu.Lock()
	delete(r.hosts, namespace+"/"+name)
	r.mu.Unlock()
	r.notify(namespace, name)
}

// OnChange implements ChangeNotifier.
func (r *StaticResolver) OnChange(fn func(namespace, name string)) {
	r.mu.Lock()
	r.listeners = append(r.listeners, fn)
	r.mu.Unlock()
}

func (r *StaticResolver) notify(namespace, name string) {
	r.mu.RLock()
	fns := append([]func(string, string){}, r.listeners...)
	r.mu.RUnlock()
	for _, fn := range fns {
		fn(namespace, name)
	}
}

// Has reports whether namespace/name is in the table: the stand-in for
// "the Service exists".
func (r *StaticResolver) Has(namespace, name string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.hosts[namespace+"/"+name]
	return ok
}

// ResolveEndpoint implements Resolver.
func (r *StaticResolver) ResolveEndpoint(namespace, name string, _ int32) (*url.URL, error) {
	r.mu.RLock()
	hostport, ok := r.hosts[namespace+"/"+name]
	r.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("service/%s in %q is not present", name, namespace)
	}
	return &url.URL{Scheme: "https", Host: hostport}, nil
}

var (
	_ Resolver       = (*StaticResolver)(nil)
	_ ChangeNotifier = (*StaticResolver)(nil)
)
