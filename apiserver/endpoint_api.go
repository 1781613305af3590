package apiserver

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/openapi"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/apiserver/request"
)

// What a server of the chain that serves resources outside go-restful
// (the apiextensions server's custom resources) builds them with: an
// Endpoint per resource, the generic handlers of its verbs, and the
// pieces of a request those handlers are made of.

// NewEndpoint is the endpoint of res served from store with verbs, as a
// custom resource version's: no subresources until added.
func NewEndpoint(res *registry.Resource, store *registry.Store, verbs []string) *Endpoint {
	e := &Endpoint{gv: res.Kind.GroupVersion(), res: res, store: store, verbs: verbs}
	e.delete = store.Delete
	return e
}

// AddStatus adds {plural}/status, served from store (get, update, patch).
func (e *Endpoint) AddStatus(store *registry.Store) {
	e.subresources = append(e.subresources, statusSubresource(e.res, store))
}

// AddListedSubresource adds a subresource discovery lists, in its
// alphabetical order, which the caller serves itself (a custom resource's
// scale, pods/log).
func (e *Endpoint) AddListedSubresource(name string, kind schema.GroupVersionKind, verbs []string) {
	e.subresources = append(e.subresources, subresource{name: name, kind: kind, verbs: verbs})
	e.sortSubresources()
}

// sortSubresources puts e's subresources in discovery's order, by name.
func (e *Endpoint) sortSubresources() {
	slices.SortStableFunc(e.subresources, func(a, b subresource) int { return strings.Compare(a.name, b.name) })
}

// BuiltinEndpoint is the endpoint of res among the built-in groups, nil if
// none serves it.
func (s *Server) BuiltinEndpoint(res *registry.Resource) *Endpoint {
	for _, g := range s.groups {
		if e := g.endpoint(res); e != nil {
			return e
		}
	}
	return nil
}

// HasSubresource reports whether e has the subresource name.
func (e *Endpoint) HasSubresource(name string) bool { return e.subresource(name) != nil }

// subresource returns e's subresource name, or nil.
func (e *Endpoint) subresource(name string) *subresource {
	for i := range e.subresources {
		if e.subresources[i].name == name {
			return &e.subresources[i]
		}
	}
	return nil
}

// Resource is what e serves; Store where it is stored.
func (e *Endpoint) Resource() *registry.Resource { return e.res }

// Store: see Resource.
func (e *Endpoint) Store() *registry.Store { return e.store }

// NewGroup is the group-version gv serving endpoints (for discovery).
func NewGroup(gv schema.GroupVersion, endpoints ...*Endpoint) *Group {
	return &Group{gv: gv, endpoints: endpoints}
}

// ResourceHandler is the generic handler of verb (get, list, watch,
// create, update, patch, delete, deletecollection) on e, or on its
// subresource sub (status: get, update, patch) when sub is not empty; nil
// when there is none.
func (s *Server) ResourceHandler(e *Endpoint, sub, verb string) HandlerFunc {
	h := &handlers{s: s, e: e}
	if sub != "" {
		if h.sub = e.subresource(sub); h.sub == nil || h.sub.store == nil {
			return nil
		}
		switch verb {
		case verbGet, verbUpdate, verbPatch:
		default:
			return nil
		}
	}
	switch verb {
	case verbGet:
		return h.get
	case verbList:
		return h.list
	case verbWatch:
		return h.watch
	case verbCreate:
		return h.create
	case verbUpdate:
		return h.update
	case verbPatch:
		return h.patch
	case verbDelete:
		return h.delete
	case verbDeleteCollection:
		return h.deleteCollection
	}
	return nil
}

// UpdateAdmission is the validating admission of an update of
// sub of namespace/name on e that is not a dry run (a custom resource's
// scale writes through its store).
func (s *Server) UpdateAdmission(r *http.Request, e *Endpoint, sub string, p Params) registry.ValidateObjectUpdateFunc {
	h := &handlers{s: s, e: e}
	return s.updateValidator(h.admissionAttributes(r, admission.Update, sub, p.Namespace, p.Name, false))
}

// TraceStored records in r's trace that verb stored obj on e.
func (s *Server) TraceStored(ctx context.Context, e *Endpoint, verb string, obj runtime.Object) {
	(&handlers{s: s, e: e}).traceStored(ctx, verb, obj)
}

// DecodeBody reads r's body and decodes it as kind into into (JSON, YAML
// or protobuf, as its Content-Type says), after checking that the
// response can be written as r accepts (406 first, as the handlers
// negotiate before they read).
func (s *Server) DecodeBody(r *http.Request, kind schema.GroupVersionKind, into runtime.Object) (runtime.Object, error) {
	if _, err := negotiate(r); err != nil {
		return nil, err
	}
	body, err := readBody(r, s.cfg.MaxRequestBodyBytes)
	if err != nil {
		return nil, err
	}
	obj, _, err := decodeBody(r, body, kind, into, "")
	return obj, err
}

// ReadBody reads r's body, up to Config.MaxRequestBodyBytes (413 past it).
func (s *Server) ReadBody(r *http.Request) ([]byte, error) {
	return readBody(r, s.cfg.MaxRequestBodyBytes)
}

// WriteObject answers obj with code, encoded as r asks (406 if it asks for
// nothing the server writes).
func (s *Server) WriteObject(w http.ResponseWriter, r *http.Request, code int, obj runtime.Object) error {
	o, err := negotiate(r)
	if err != nil {
		return err
	}
	s.writeObject(w, r, code, obj, o)
	return nil
}

// SetTraceRoute records, in the trace of the request ctx belongs to, the
// route template that served it (a handler outside go-restful's).
func SetTraceRoute(ctx context.Context, route string) { request.TraceFrom(ctx).SetRoute(route) }

// StoreConfig is the storage configuration of the server's stores, for
// stores built while it runs (a CRD version's): etcd, bookmarks, the
// watch cache window, and the write observer that feeds the evidence.
func (s *Server) StoreConfig() registry.StoreConfig {
	return registry.StoreConfig{Client: s.cfg.Etcd, BookmarkInterval: s.cfg.BookmarkInterval, WatchCache: s.cfg.WatchCache, OnWrite: s.observeWrite}
}

// OpenAPI is the server's OpenAPI v2/v3 handler, where the apiextensions
// server publishes the documents of the CRD group-versions.
func (s *Server) OpenAPI() *openapi.Handler { return s.openapi }
