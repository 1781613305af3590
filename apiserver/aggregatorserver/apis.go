package aggregatorserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/aggregator"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// discoveryFetchTimeout bounds the aggregator's fetch of one
// group-version's resources, as upstream's discovery manager bounds it.
const discoveryFetchTimeout = 5 * time.Second

// listAPIServices lists the APIServices the aggregator's informer holds.
func (s *Server) listAPIServices() []*apiregistrationv1.APIService {
	var out []*apiregistrationv1.APIService
	for _, obj := range s.apiServices.GetStore().List() {
		if a, ok := obj.(*apiregistrationv1.APIService); ok {
			out = append(out, a)
		}
	}
	return out
}

// serveAPIs answers /apis from the APIServices, as kube-aggregator: the
// legacy APIGroupList (apiregistration.k8s.io first, then by priority), or
// the aggregated apidiscovery.k8s.io/v2 document for clients that ask for
// it (kubectl), with each group-version's resources fetched from the
// server that serves it.
func (s *Server) serveAPIs(w http.ResponseWriter, r *http.Request) {
	services := s.listAPIServices()
	s.generic.WriteDiscovery(w, r, aggregator.GroupList(services), func() *apidiscoveryv2.APIGroupDiscoveryList {
		return aggregator.AggregatedList(s.versionDocuments(services))
	})
}

// serveAPIGroup answers /apis/<group> when APIServices serve group, and
// reports false otherwise (the request is then delegated, as upstream's
// apiGroupHandler delegates).
func (s *Server) serveAPIGroup(w http.ResponseWriter, r *http.Request, group string) bool {
	g := aggregator.Group(s.listAPIServices(), group)
	if g == nil {
		return false
	}
	apiserver.TraceHop(r, apiserver.ServerAggregator, "served", "/apis/"+group+" from its APIServices")
	s.generic.WriteJSON(w, http.StatusOK, g)
	return true
}

// versionDocuments fetches the resources of every named group-version of
// services (the core group is /api's), and of apiregistration.k8s.io/v1,
// in parallel: a local one from the delegate in the process, as upstream's
// aggregator asks its local delegate, a remote one through the proxy
// (whether Available or not, as upstream's discovery manager does). A
// fetch that fails leaves its group-version listed without resources,
// Stale.
func (s *Server) versionDocuments(services []*apiregistrationv1.APIService) []aggregator.VersionDocument {
	reg := aggregator.VersionDocument{GroupVersion: apiregistrationv1.SchemeGroupVersion, Priority: aggregator.RegistrationPriority}
	var targets []*apiregistrationv1.APIService
	for _, a := range services {
		if a.Spec.Group != "" {
			targets = append(targets, a)
		}
	}
	docs := make([]aggregator.VersionDocument, len(targets)+1)
	docs[0] = s.fetchDocument(reg, s.container, true)
	var wg sync.WaitGroup
	for i, a := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d := aggregator.VersionDocument{
				GroupVersion: schema.GroupVersion{Group: a.Spec.Group, Version: a.Spec.Version},
				Priority:     aggregator.Priority{Group: a.Spec.GroupPriorityMinimum, Version: a.Spec.VersionPriority},
			}
			var h http.Handler = s.handler // local: the handler delegates
			if a.Spec.Service != nil {
				h = s.handler.Backend(a.Name)
			}
			docs[i+1] = s.fetchDocument(d, h, a.Spec.Service == nil)
		}()
	}
	wg.Wait()
	return docs
}

// aggregatorUser is who the aggregator's own discovery fetches are made
// as, upstream's.
var aggregatorUser = &auth.User{Name: "system:kube-aggregator", Groups: []string{"system:masters"}}

// fetchDocument fills d's resources from GET /apis/<group>/<version> on h,
// in the process (no trace: the fetch is the aggregator's, not the
// client's); d is Stale if that fails. local says whether the response
// kinds take d's group-version when they name none.
func (s *Server) fetchDocument(d aggregator.VersionDocument, h http.Handler, local bool) aggregator.VersionDocument {
	d.Stale = true
	if h == nil {
		return d
	}
	ctx, cancel := context.WithTimeout(context.Background(), discoveryFetchTimeout)
	defer cancel()
	path := "/apis/" + d.GroupVersion.Group + "/" + d.GroupVersion.Version
	ctx = request.WithAttributes(ctx, auth.Attributes{User: aggregatorUser, Verb: "get", Path: path})
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, path, nil)
	if err != nil {
		return d
	}
	req.Header.Set("Accept", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return d
	}
	var list metav1.APIResourceList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		return d
	}
	res, err := aggregator.ResourcesFromList(&list, d.GroupVersion, local)
	if err != nil {
		s.generic.ErrorLog().Printf("aggregator: discovery of %s: %v", d.GroupVersion, err)
		return d
	}
	d.Resources, d.Stale = res, false
	return d
}
