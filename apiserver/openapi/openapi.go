package openapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/munnerz/goautoneg"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Path is where the Handler is mounted: the index is Path itself and the
// group-version documents are below Path + "/".
const Path = "/openapi/v3"

// The verbs a Resource or Subresource may list, as in API discovery.
const (
	VerbCreate           = "create"
	VerbDelete           = "delete"
	VerbDeleteCollection = "deletecollection"
	VerbGet              = "get"
	VerbList             = "list"
	VerbPatch            = "patch"
	VerbUpdate           = "update"
	VerbWatch            = "watch"
)

// Resource describes one served resource.
type Resource struct {
	Kind       schema.GroupVersionKind // e.g. {Group: "", Version: "v1", Kind: "Pod"}
	Plural     string                  // "pods"
	Namespaced bool
	Verbs      []string       // discovery verbs: create delete deletecollection get list patch update watch
	Object     runtime.Object // zero value of the Go type, e.g. &corev1.Pod{}
	List       runtime.Object // e.g. &corev1.PodList{}; needed for list and watch
	// DeleteReturnsObject says that DELETE answers with the deleted object
	// (as kube-apiserver does for pods) rather than a metav1.Status, the
	// default.
	DeleteReturnsObject bool
	Subresources        []Subresource
}

// Subresource is e.g. pods/status (Pod; get, update, patch) or pods/binding (Binding; create).
type Subresource struct {
	Name   string
	Kind   schema.GroupVersionKind // kind of the request body
	Object runtime.Object
	Verbs  []string // get, create, update, patch, delete
}

// Handler serves GET /openapi/v3 and /openapi/v3/<api/v1 | apis/<group>/<version>>.
//
// Mount it at both Path and Path+"/". The index lists one document per
// group-version with the hash of its bytes in serverRelativeURL. A document
// request whose hash query parameter is stale is redirected (301) to the
// current URL; one with the current hash is marked cacheable for a year, as
// kube-apiserver does. The documents carry an ETag (the same hash) and
// honour If-None-Match; the index, served as kube-apiserver's aggregator
// serves it, has neither an ETag nor a Content-Type of its own (serveIndex).
// Documents are JSON only: an Accept header that admits no JSON (for
// example only the protobuf OpenAPI type) gets 406. Any other path gets an
// empty 404, as the aggregator answers a group-version it does not know.
// Like kube-apiserver's handler it does not look at the method.
//
// The documents of the built-in groups are built once, in New (or, with
// NewInBackground, on a goroutine that requests wait for); Set adds,
// replaces and removes documents while the server runs (the CRD
// group-versions), and the index and ETags follow. A Handler is safe for
// concurrent use.
type Handler struct {
	built    chan struct{} // closed once the built-in documents are in docs
	buildErr error         // set before built is closed
	mu       sync.RWMutex
	index    servedDoc
	docs     map[string]servedDoc // "api/v1", "apis/coordination.k8s.io/v1"
}

type servedDoc struct {
	body     []byte
	etag     string // upper-case hex SHA-512 of body, unquoted
	modified time.Time
}

// New builds one document per group-version found in resources, with the
// paths of every operation their verbs imply and the schemas of every Go
// type those operations reach. It fails on an incomplete Resource, an
// unknown verb or a Go type it cannot describe.
func New(resources []Resource) (*Handler, error) {
	h, build, err := prepare(resources)
	if err != nil {
		return nil, err
	}
	h.buildErr = build()
	close(h.built)
	if h.buildErr != nil {
		return nil, h.buildErr
	}
	return h, nil
}

// NewInBackground is New, but it returns once resources are checked and
// builds the documents on a goroutine of its own: every request (and
// Set) waits for them, and a build that failed answers 500 with its
// error. kube-apiserver builds its documents before it serves
// (routes.OpenAPI.InstallV3, from PrepareRun); kubesim's start does not
// wait the tenth of a second the built-in documents take, and a request
// for them that early waits instead.
func NewInBackground(resources []Resource) (*Handler, error) {
	h, build, err := prepare(resources)
	if err != nil {
		return nil, err
	}
	go func() {
		h.buildErr = build()
		close(h.built)
	}()
	return h, nil
}

// prepare checks resources and returns the Handler and the function that
// builds its documents (and index) into it.
func prepare(resources []Resource) (*Handler, func() error, error) {
	byGV := map[schema.GroupVersion][]Resource{}
	seen := map[string]bool{}
	for _, r := range resources {
		if err := validate(r); err != nil {
			return nil, nil, err
		}
		gv := r.Kind.GroupVersion()
		key := gv.String() + "/" + r.Plural
		if seen[key] {
			return nil, nil, fmt.Errorf("openapi: resource %s is listed twice", key)
		}
		seen[key] = true
		byGV[gv] = append(byGV[gv], r)
	}
	h := &Handler{docs: map[string]servedDoc{}, built: make(chan struct{})}
	return h, func() error { return h.build(byGV, kindsByType(resources)) }, nil
}

// build makes the documents of byGV and the index.
func (h *Handler) build(byGV map[schema.GroupVersion][]Resource, gvks typeKinds) error {
	q, err := buildQueryParamSets()
	if err != nil {
		return fmt.Errorf("openapi: %w", err)
	}
	now := time.Now()
	version := infoVersion()
	for gv, rs := range byGV {
		sort.Slice(rs, func(i, j int) bool { return rs[i].Plural < rs[j].Plural })
		doc, err := buildDocument(gv, rs, q, version, gvks.forDocument)
		if err != nil {
			return fmt.Errorf("openapi: %s: %w", gv, err)
		}
		body, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("openapi: encoding %s: %w", gv, err)
		}
		key := strings.TrimPrefix(gvRoot(gv), "/")
		h.docs[key] = servedDoc{body: body, etag: etagOf(body), modified: now}
	}
	return h.rebuildIndex(now)
}

// wait waits for the built-in documents and returns the error of their
// build, if any.
func (h *Handler) wait() error {
	<-h.built
	return h.buildErr
}

func validate(r Resource) error {
	switch {
	case r.Kind.Version == "" || r.Kind.Kind == "":
		return fmt.Errorf("openapi: resource %q: Kind %v needs a version and a kind", r.Plural, r.Kind)
	case r.Plural == "" || strings.Contains(r.Plural, "/"):
		return fmt.Errorf("openapi: resource of kind %s: bad Plural %q", r.Kind.Kind, r.Plural)
	case r.Object == nil:
		return fmt.Errorf("openapi: resource %s: no Object", r.Plural)
	}
	return nil
}

// indexDocument is the body of GET /openapi/v3 (the same shape as
// kube-openapi's handler3.OpenAPIV3Discovery).
type indexDocument struct {
	Paths map[string]indexEntry `json:"paths"`
}

type indexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

func etagOf(b []byte) string { return fmt.Sprintf("%X", sha512.Sum512(b)) }

func documentURL(key, etag string) string {
	return (&url.URL{Path: Path + "/" + key, RawQuery: url.Values{"hash": {etag}}.Encode()}).String()
}

// infoVersion is the Kubernetes release the served types come from, derived
// from the k8s.io/api module version (v0.37.2 is Kubernetes v1.37.2), or
// "unversioned" when the build carries no module information.
func infoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == "k8s.io/api" {
				v := m.Version
				if m.Replace != nil && m.Replace.Version != "" {
					v = m.Replace.Version
				}
				if rest, ok := strings.CutPrefix(v, "v0."); ok {
					return "v1." + strings.SplitN(rest, "-", 2)[0]
				}
			}
		}
	}
	return "unversioned"
}

// typeKinds records, for every Go type the resources name, the kinds it is
// served as: the x-kubernetes-group-version-kind list of its schema.
type typeKinds map[reflect.Type][]schema.GroupVersionKind

func (tk typeKinds) add(obj any, gvk schema.GroupVersionKind) {
	t := reflect.TypeOf(obj)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if !slices.Contains(tk[t], gvk) {
		tk[t] = append(tk[t], gvk)
	}
}

func kindsByType(resources []Resource) typeKinds {
	tk := typeKinds{}
	core := schema.GroupVersion{Version: "v1"}
	// Kinds the server registers once, in the core group, whatever it serves.
	tk.add(&metav1.Status{}, core.WithKind("Status"))
	tk.add(&metav1.APIResourceList{}, core.WithKind("APIResourceList"))
	for _, r := range resources {
		tk.add(r.Object, r.Kind)
		if r.List != nil {
			lt := reflect.TypeOf(r.List)
			for lt.Kind() == reflect.Pointer {
				lt = lt.Elem()
			}
			tk.add(r.List, r.Kind.GroupVersion().WithKind(lt.Name()))
		}
		for _, s := range r.Subresources {
			if s.Object != nil {
				tk.add(s.Object, s.Kind)
			}
		}
	}
	for _, list := range tk {
		sortGVKs(list)
	}
	return tk
}

// crossRegistered are the meta types every group-version registers. In a
// document kube-apiserver lists them under the core group and the
// document's own group-version only.
var crossRegistered = map[reflect.Type]string{
	reflect.TypeFor[metav1.DeleteOptions](): "DeleteOptions",
	reflect.TypeFor[metav1.WatchEvent]():    "WatchEvent",
}

// forDocument is the x-kubernetes-group-version-kind list of t in the
// document of gv.
func (tk typeKinds) forDocument(gv schema.GroupVersion, t reflect.Type) []schema.GroupVersionKind {
	if kind, ok := crossRegistered[t]; ok {
		list := []schema.GroupVersionKind{{Version: "v1", Kind: kind}}
		if gv.Group != "" || gv.Version != "v1" {
			list = append(list, gv.WithKind(kind))
		}
		sortGVKs(list)
		return list
	}
	return tk[t]
}

func sortGVKs(list []schema.GroupVersionKind) {
	sort.Slice(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Group != b.Group {
			return a.Group < b.Group
		}
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return a.Kind < b.Kind
	})
}

// ServeHTTP answers the index at Path and the documents below it; see
// Handler for the caching and negotiation rules.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h.wait(); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	switch {
	case r.URL.Path == Path:
		h.serveIndex(w, r)
	case strings.HasPrefix(r.URL.Path, Path+"/"):
		key := strings.TrimPrefix(r.URL.Path, Path+"/")
		h.mu.RLock()
		doc, ok := h.docs[key]
		h.mu.RUnlock()
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		serveDocument(w, r, key, doc)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

// serveIndex answers the index as kube-apiserver does: its aggregator's
// OpenAPI v3 proxier (handleDiscovery) merges the index of every server
// and hands it to http.ServeContent, named Path and modified now, without
// a Content-Type or an ETag; so the type is sniffed from the bytes
// ("text/plain; charset=utf-8") and every request gets the whole index.
func (h *Handler) serveIndex(w http.ResponseWriter, r *http.Request) {
	h.mu.RLock()
	index := h.index
	h.mu.RUnlock()
	http.ServeContent(w, r, Path, time.Now(), bytes.NewReader(index.body))
}

// acceptsJSON reports whether the Accept header admits application/json.
// Clauses are tried in the client's order of preference; a clause naming
// only a type this server does not produce (the protobuf OpenAPI encoding)
// is passed over, as kube-openapi's handler passes over types it lacks.
func acceptsJSON(accept string) bool {
	if accept == "" {
		accept = "*/*"
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if (c.Type == "application" || c.Type == "*") && (c.SubType == "json" || c.SubType == "*") && c.Q > 0 {
			return true
		}
	}
	return false
}

func serveDocument(w http.ResponseWriter, r *http.Request, key string, doc servedDoc) {
	w.Header().Add("Vary", "Accept")
	if !acceptsJSON(r.Header.Get("Accept")) {
		w.WriteHeader(http.StatusNotAcceptable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", strconv.Quote(doc.etag))
	if hash := r.URL.Query().Get("hash"); hash != "" {
		if hash != doc.etag {
			http.Redirect(w, r, documentURL(key, doc.etag), http.StatusMovedPermanently)
			return
		}
		// The URL names these exact bytes, so they may be cached for good.
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", time.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	http.ServeContent(w, r, "", doc.modified, bytes.NewReader(doc.body))
}
