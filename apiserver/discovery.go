package apiserver

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"

	restful "github.com/emicklei/go-restful/v3"
	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/openapi"
)

// installDiscovery adds /api, /apis, /apis/<group> and /version. /api and
// /apis answer the aggregated form (apidiscovery.k8s.io/v2) to clients
// that ask for it, as kubectl does, and the legacy lists otherwise.
func (s *Server) installDiscovery(c *restful.Container) {
	api := new(restful.WebService)
	api.Path("/api").Consumes("*/*").Produces(mediaJSON)
	api.Route(api.GET("/").To(func(req *restful.Request, resp *restful.Response) {
		s.serveAPIVersions(resp.ResponseWriter, req.Request)
	}).Operation("getCoreAPIVersions").Doc("get available API versions"))
	c.Add(api)

	apis := new(restful.WebService)
	apis.Path("/apis").Consumes("*/*").Produces(mediaJSON)
	apis.Route(apis.GET("/").To(func(req *restful.Request, resp *restful.Response) {
		s.serveAPIGroupList(resp.ResponseWriter, req.Request)
	}).Operation("getAPIVersions").Doc("get available API versions"))
	for _, g := range s.groups {
		if g.gv.Group != "" && s.versionsOf(g)[0] == g { // one /apis/<group> for all its versions
			c.Add(s.GroupDiscoveryService(g))
		}
	}
	c.Add(apis)

	version := new(restful.WebService)
	version.Path("/version").Consumes("*/*").Produces(mediaJSON)
	version.Route(version.GET("/").To(func(req *restful.Request, resp *restful.Response) {
		s.WriteJSON(resp.ResponseWriter, http.StatusOK, s.cfg.Version)
	}).Operation("getCodeVersion").Doc("get the version information for this server"))
	c.Add(version)
}

// GroupDiscoveryService is the WebService of /apis/<group>: GET answers
// the group's APIGroup.
func (s *Server) GroupDiscoveryService(g *Group) *restful.WebService {
	ws := new(restful.WebService)
	ws.Path("/apis/" + g.gv.Group).Consumes("*/*").Produces(mediaJSON)
	ws.Route(ws.GET("/").To(func(req *restful.Request, resp *restful.Response) {
		s.WriteJSON(resp.ResponseWriter, http.StatusOK, s.apiGroup(g))
	}).Operation("get" + opGroup(g.gv)[:len(opGroup(g.gv))-len(exported(g.gv.Version))] + "APIGroup").Doc("get information of a group"))
	return ws
}

// namedGroups are the groups with a name, of every server of the chain:
// what /apis lists.
func (s *Server) namedGroups() []*Group {
	return append(append(append([]*Group(nil), s.groups[1:]...), s.extensions), s.registration)
}

// WriteJSON writes a discovery document as plain JSON.
func (s *Server) WriteJSON(w http.ResponseWriter, code int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", mediaJSON)
	w.WriteHeader(code)
	_, _ = w.Write(append(data, '\n'))
}

// serverAddress is the address clients reach the server at.
func serverAddress(r *http.Request) string {
	if r.Host != "" {
		return r.Host
	}
	return r.URL.Host
}

func (s *Server) serveAPIVersions(w http.ResponseWriter, r *http.Request) {
	o, err := negotiate(r, asDiscoveryList)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	if o.as == asDiscoveryList {
		s.writeAggregated(w, r, o, s.groups[:1])
		return
	}
	s.WriteJSON(w, http.StatusOK, &metav1.APIVersions{
		TypeMeta:                   metav1.TypeMeta{Kind: "APIVersions"},
		Versions:                   []string{"v1"},
		ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: serverAddress(r)}},
	})
}

func (s *Server) serveAPIGroupList(w http.ResponseWriter, r *http.Request) {
	o, err := negotiate(r, asDiscoveryList)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	if o.as == asDiscoveryList {
		s.writeAggregated(w, r, o, s.namedGroups())
		return
	}
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for _, g := range s.namedGroups() {
		if s.versionsOf(g)[0] != g {
			continue // listed with its group's preferred version
		}
		ag := s.apiGroup(g)
		ag.TypeMeta = metav1.TypeMeta{}
		list.Groups = append(list.Groups, *ag)
	}
	s.WriteJSON(w, http.StatusOK, list)
}

// apiGroup is the APIGroup of g's group: each version the server serves
// of it, the first (preferred) one first.
func (s *Server) apiGroup(g *Group) *metav1.APIGroup {
	ag := &metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: g.gv.Group}
	for _, gv := range s.versionsOf(g) {
		ag.Versions = append(ag.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.gv.String(), Version: gv.gv.Version})
	}
	ag.PreferredVersion = ag.Versions[0]
	return ag
}

// versionsOf returns the group-versions of the server's groups that have
// g's group name, in the order of s.groups (registry.Groups lists a
// group's preferred version first), or g alone if it is not one of them
// (the apiextensions and aggregator groups).
func (s *Server) versionsOf(g *Group) []*Group {
	var out []*Group
	for _, o := range s.groups {
		if o.gv.Group == g.gv.Group {
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return []*Group{g}
	}
	return out
}

// ServeResourceList answers GET /api/v1 and /apis/<group>/<version>.
func (s *Server) ServeResourceList(w http.ResponseWriter, r *http.Request, g *Group) {
	list := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: g.gv.String()}
	if g.gv.Group != "" {
		list.APIVersion = "v1"
	}
	for _, e := range g.endpoints {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name:               e.res.Plural,
			SingularName:       e.res.Singular,
			Namespaced:         e.res.Namespaced,
			Kind:               e.res.Kind.Kind,
			Verbs:              e.verbs,
			ShortNames:         e.res.ShortNames,
			Categories:         e.res.Categories,
			StorageVersionHash: storageVersionHash(e.gvk().Group, e.gvk().Version, e.gvk().Kind),
		})
		for _, sub := range e.subresources {
			r := metav1.APIResource{
				Name:       e.res.Plural + "/" + sub.name,
				Namespaced: e.res.Namespaced,
				Kind:       sub.kind.Kind,
				Verbs:      sub.verbs,
			}
			if sub.kind.Group != g.gv.Group {
				r.Group, r.Version = sub.kind.Group, sub.kind.Version
			}
			list.APIResources = append(list.APIResources, r)
		}
	}
	if g.bindings != nil {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: "bindings", SingularName: "binding", Namespaced: true, Kind: "Binding", Verbs: []string{verbCreate},
		})
	}
	for _, rv := range g.reviews {
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: rv.Plural, SingularName: rv.Singular, Namespaced: rv.Namespaced, Kind: rv.Kind.Kind, Verbs: []string{verbCreate},
		})
	}
	sort.Slice(list.APIResources, func(i, j int) bool { return list.APIResources[i].Name < list.APIResources[j].Name })
	s.WriteJSON(w, http.StatusOK, list)
}

// storageVersionHash is the opaque hash discovery publishes per resource,
// computed as kube-apiserver computes it.
func storageVersionHash(group, version, kind string) string {
	sum := sha256.Sum256([]byte(group + "/" + version + "/" + kind))
	return base64.StdEncoding.EncodeToString(sum[:8])
}

// writeAggregated writes the aggregated discovery document of groups.
func (s *Server) writeAggregated(w http.ResponseWriter, r *http.Request, o output, groups []*Group) {
	list := &apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
	for _, g := range groups {
		v := apidiscoveryv2.APIVersionDiscovery{Version: g.gv.Version, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
		for _, e := range g.endpoints {
			scope := apidiscoveryv2.ScopeCluster
			if e.res.Namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			gvk := e.gvk()
			rd := apidiscoveryv2.APIResourceDiscovery{
				Resource:         e.res.Plural,
				ResponseKind:     &metav1.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind},
				Scope:            scope,
				SingularResource: e.res.Singular,
				Verbs:            e.verbs,
				ShortNames:       e.res.ShortNames,
				Categories:       e.res.Categories,
			}
			for _, sub := range e.subresources {
				rd.Subresources = append(rd.Subresources, apidiscoveryv2.APISubresourceDiscovery{
					Subresource:  sub.name,
					ResponseKind: &metav1.GroupVersionKind{Group: sub.kind.Group, Version: sub.kind.Version, Kind: sub.kind.Kind},
					Verbs:        sub.verbs,
				})
			}
			v.Resources = append(v.Resources, rd)
		}
		if g.bindings != nil {
			v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{
				Resource: "bindings", ResponseKind: &metav1.GroupVersionKind{Version: "v1", Kind: "Binding"},
				Scope: apidiscoveryv2.ScopeNamespace, SingularResource: "binding", Verbs: []string{verbCreate},
			})
		}
		for _, rv := range g.reviews {
			scope := apidiscoveryv2.ScopeCluster
			if rv.Namespaced {
				scope = apidiscoveryv2.ScopeNamespace
			}
			v.Resources = append(v.Resources, apidiscoveryv2.APIResourceDiscovery{
				Resource: rv.Plural, ResponseKind: &metav1.GroupVersionKind{Group: rv.Kind.Group, Version: rv.Kind.Version, Kind: rv.Kind.Kind},
				Scope: scope, SingularResource: rv.Singular, Verbs: []string{verbCreate},
			})
		}
		sort.Slice(v.Resources, func(i, j int) bool { return v.Resources[i].Resource < v.Resources[j].Resource })
		if n := len(list.Items); n > 0 && list.Items[n-1].Name == g.gv.Group { // another version of the group
			list.Items[n-1].Versions = append(list.Items[n-1].Versions, v)
			continue
		}
		list.Items = append(list.Items, apidiscoveryv2.APIGroupDiscovery{
			ObjectMeta: metav1.ObjectMeta{Name: g.gv.Group},
			Versions:   []apidiscoveryv2.APIVersionDiscovery{v},
		})
	}
	s.writeDiscoveryList(w, r, o, list)
}

// WriteDiscovery answers a discovery request (/apis): with the aggregated
// apidiscovery.k8s.io/v2 document aggregated makes when the client asks
// for it (kubectl does), else with legacy (a metav1.APIGroupList), as
// JSON.
func (s *Server) WriteDiscovery(w http.ResponseWriter, r *http.Request, legacy any, aggregated func() *apidiscoveryv2.APIGroupDiscoveryList) {
	o, err := negotiate(r, asDiscoveryList)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	if o.as != asDiscoveryList {
		s.WriteJSON(w, http.StatusOK, legacy)
		return
	}
	s.writeDiscoveryList(w, r, o, aggregated())
}

// writeDiscoveryList writes an aggregated discovery document with its
// ETag, or 304 Not Modified to a client whose If-None-Match is that ETag.
func (s *Server) writeDiscoveryList(w http.ResponseWriter, r *http.Request, o output, list *apidiscoveryv2.APIGroupDiscoveryList) {
	data, err := json.Marshal(list)
	if err != nil {
		s.WriteError(w, r, err)
		return
	}
	sum := sha256.Sum256(data)
	etag := fmt.Sprintf("%q", fmt.Sprintf("%X", sum[:16]))
	w.Header().Set("Content-Type", contentType(o))
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(append(data, '\n'))
}

// openAPIResources describes the served resources for the OpenAPI documents.
func (s *Server) openAPIResources() []openapi.Resource {
	var out []openapi.Resource
	for _, g := range append(append([]*Group(nil), s.groups...), s.extensions, s.registration) {
		for _, e := range g.endpoints {
			r := openapi.Resource{
				Kind:                e.gvk(),
				Plural:              e.res.Plural,
				Namespaced:          e.res.Namespaced,
				Verbs:               e.verbs,
				Object:              e.res.NewFunc(),
				List:                e.res.NewListFunc(),
				DeleteReturnsObject: e.res.CheckGracefulDelete != nil,
			}
			for _, sub := range e.subresources {
				var obj runtime.Object
				if sub.newFunc != nil {
					obj = sub.newFunc()
				} else {
					obj = e.res.NewFunc()
				}
				r.Subresources = append(r.Subresources, openapi.Subresource{Name: sub.name, Kind: sub.kind, Object: obj, Verbs: sub.verbs})
			}
			out = append(out, r)
		}
	}
	return out
}
