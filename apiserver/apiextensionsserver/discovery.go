package apiextensionsserver

import (
	"net/http"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/kubesim/kubesim/apiserver"
)

// crVerbs are the verbs discovery lists for a custom resource, in
// upstream's order.
var crVerbs = []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"}

// serveNonResource answers discovery for the groups CRDs serve, as
// upstream's crdHandler does with its group and version discovery
// handlers: /apis/<group> is the APIGroup, /apis/<group>/<version> the
// APIResourceList (what the aggregator asks for to build /apis). Only
// established CRDs count. Anything else is delegated.
func (c *crdHandler) serveNonResource(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] != "apis" {
		c.pass(w, r, "no CRD serves "+r.URL.Path)
		return
	}
	crds := c.establishedCRDs(parts[1])
	if len(parts) == 2 {
		if g := crdAPIGroup(parts[1], crds); g != nil {
			apiserver.TraceHop(r, apiserver.ServerAPIExtensions, "served", "discovery of CRD group "+parts[1])
			c.s.WriteJSON(w, http.StatusOK, g)
			return
		}
		c.pass(w, r, "no CRD serves group "+parts[1])
		return
	}
	gv := schema.GroupVersion{Group: parts[1], Version: parts[2]}
	var endpoints []*apiserver.Endpoint
	for _, crd := range crds {
		if !apihelpers.HasServedCRDVersion(crd, gv.Version) {
			continue
		}
		serving, err := c.servingFor(crd)
		if err != nil {
			continue
		}
		endpoints = append(endpoints, serving.versions[gv.Version].endpoint)
	}
	if len(endpoints) == 0 {
		c.pass(w, r, "no CRD serves "+gv.String())
		return
	}
	apiserver.TraceHop(r, apiserver.ServerAPIExtensions, "served", "discovery of CRD group-version "+gv.String())
	c.s.ServeResourceList(w, r, apiserver.NewGroup(gv, endpoints...))
}

// establishedCRDs lists the established CRDs of group, by name.
func (c *crdHandler) establishedCRDs(group string) []*apiextensionsv1.CustomResourceDefinition {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, crd := range c.crds {
		if crd.Spec.Group == group && apihelpers.IsCRDConditionTrue(crd, apiextensionsv1.Established) {
			out = append(out, crd)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// crdAPIGroup is the APIGroup of group: the versions its CRDs serve,
// highest priority first (Kubernetes' version order: v2 > v1 > v1beta1),
// the first one preferred, as upstream's discovery controller does. Nil
// when no version is served.
func crdAPIGroup(group string, crds []*apiextensionsv1.CustomResourceDefinition) *metav1.APIGroup {
	seen := map[string]bool{}
	var versions []string
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if v.Served && !seen[v.Name] {
				seen[v.Name] = true
				versions = append(versions, v.Name)
			}
		}
	}
	if len(versions) == 0 {
		return nil
	}
	sort.Slice(versions, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(versions[i], versions[j]) > 0 })
	g := &metav1.APIGroup{TypeMeta: metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}, Name: group}
	for _, v := range versions {
		g.Versions = append(g.Versions, metav1.GroupVersionForDiscovery{GroupVersion: group + "/" + v, Version: v})
	}
	g.PreferredVersion = g.Versions[0]
	return g
}
