package aggregator

import (
	"fmt"
	"sort"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// registrationGroup is the aggregator's own group in /apis: always first,
// as upstream's apisHandler puts it ("it never has an APIService").
func registrationGroup() metav1.APIGroup {
	v := metav1.GroupVersionForDiscovery{GroupVersion: apiregv1.SchemeGroupVersion.String(), Version: apiregv1.SchemeGroupVersion.Version}
	return metav1.APIGroup{Name: apiregv1.GroupName, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v}
}

// GroupList is the legacy /apis document (metav1.APIGroupList) of
// services, as upstream's apisHandler builds it: apiregistration.k8s.io
// first, then one group per group of APIServices ordered by
// groupPriorityMinimum and versionPriority (helper.SortedByGroupAndVersion),
// the core group ("v1.") left out. Every APIService is listed, available
// or not.
func GroupList(services []*apiregv1.APIService) *metav1.APIGroupList {
	list := &metav1.APIGroupList{
		TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"},
		Groups:   []metav1.APIGroup{registrationGroup()},
	}
	for _, group := range helper.SortedByGroupAndVersion(services) {
		if group[0].Spec.Group == "" {
			continue
		}
		list.Groups = append(list.Groups, *discoveryGroup(group))
	}
	return list
}

// discoveryGroup is the APIGroup of the APIServices of one group, sorted:
// the first is the preferred version.
func discoveryGroup(sorted []*apiregv1.APIService) *metav1.APIGroup {
	g := &metav1.APIGroup{Name: sorted[0].Spec.Group}
	for _, a := range sorted {
		v := metav1.GroupVersionForDiscovery{GroupVersion: a.Spec.Group + "/" + a.Spec.Version, Version: a.Spec.Version}
		if len(g.Versions) == 0 {
			g.PreferredVersion = v
		}
		g.Versions = append(g.Versions, v)
	}
	return g
}

// Group is the /apis/<group> document of group from services, or nil when
// no APIService serves the group (the aggregator then delegates, as
// upstream's apiGroupHandler does).
func Group(services []*apiregv1.APIService, group string) *metav1.APIGroup {
	var in []*apiregv1.APIService
	for _, a := range services {
		if a.Spec.Group == group {
			in = append(in, a)
		}
	}
	if len(in) == 0 {
		return nil
	}
	g := discoveryGroup(helper.SortedByGroupAndVersion(in)[0])
	g.TypeMeta = metav1.TypeMeta{Kind: "APIGroup", APIVersion: "v1"}
	return g
}

// VersionDocument is what the aggregator learned of one group-version for
// the aggregated discovery document: its resources, and whether fetching
// them failed (Stale, as upstream marks a group-version whose discovery
// could not be fetched).
type VersionDocument struct {
	GroupVersion schema.GroupVersion
	Priority     Priority
	Resources    []apidiscoveryv2.APIResourceDiscovery
	Stale        bool
}

// AggregatedList merges docs into the aggregated discovery document
// (apidiscovery.k8s.io/v2), ordered as upstream's discovery manager orders
// it: groups by the highest groupPriorityMinimum of their versions
// (highest first, then by name), the versions of a group by
// versionPriority (highest first, then kube-aware version order: v2 >
// v1 > v1beta1 > v1alpha1).
func AggregatedList(docs []VersionDocument) *apidiscoveryv2.APIGroupDiscoveryList {
	byGroup := map[string][]VersionDocument{}
	groupPrio := map[string]int32{}
	for _, d := range docs {
		g := d.GroupVersion.Group
		byGroup[g] = append(byGroup[g], d)
		if p, ok := groupPrio[g]; !ok || d.Priority.Group > p {
			groupPrio[g] = d.Priority.Group
		}
	}
	names := make([]string, 0, len(byGroup))
	for g := range byGroup {
		names = append(names, g)
	}
	sort.Slice(names, func(i, j int) bool {
		if pi, pj := groupPrio[names[i]], groupPrio[names[j]]; pi != pj {
			return pi > pj
		}
		return names[i] < names[j]
	})
	list := &apidiscoveryv2.APIGroupDiscoveryList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}}
	for _, g := range names {
		vs := byGroup[g]
		sort.SliceStable(vs, func(i, j int) bool {
			if pi, pj := vs[i].Priority.Version, vs[j].Priority.Version; pi != pj {
				return pi > pj
			}
			return version.CompareKubeAwareVersionStrings(vs[i].GroupVersion.Version, vs[j].GroupVersion.Version) > 0
		})
		item := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g}}
		for _, d := range vs {
			v := apidiscoveryv2.APIVersionDiscovery{Version: d.GroupVersion.Version, Resources: d.Resources, Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}
			if d.Stale {
				v.Freshness = apidiscoveryv2.DiscoveryFreshnessStale
			}
			item.Versions = append(item.Versions, v)
		}
		list.Items = append(list.Items, item)
	}
	return list
}

// ResourcesFromList turns a group-version's legacy resource list into the
// resources of the aggregated document, as upstream converts the legacy
// discovery of an aggregated server: a "plural/sub" entry becomes a
// subresource of plural, with plural's scope (a mismatch is an error). A
// response kind without group or version is given gv's when fill is set
// (kube-apiserver's own groups publish the full kind).
func ResourcesFromList(list *metav1.APIResourceList, gv schema.GroupVersion, fill bool) ([]apidiscoveryv2.APIResourceDiscovery, error) {
	kind := func(group, ver, k string) *metav1.GroupVersionKind {
		if fill && group == "" && ver == "" {
			group, ver = gv.Group, gv.Version
		}
		return &metav1.GroupVersionKind{Group: group, Version: ver, Kind: k}
	}
	var out []apidiscoveryv2.APIResourceDiscovery
	index := map[string]int{}
	for _, r := range list.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		index[r.Name] = len(out)
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource: r.Name, Scope: scopeOf(r), ResponseKind: kind(r.Group, r.Version, r.Kind),
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories, SingularResource: r.SingularName,
		})
	}
	for _, r := range list.APIResources {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, exists := index[parent]
		if !exists {
			// A subresource whose resource is not listed gets an entry
			// of its own, with an empty kind, as upstream gives it.
			index[parent], i = len(out), len(out)
			out = append(out, apidiscoveryv2.APIResourceDiscovery{Resource: parent, Scope: scopeOf(r), ResponseKind: &metav1.GroupVersionKind{}})
		}
		if out[i].Scope != scopeOf(r) {
			return nil, fmt.Errorf("resource %s (scope %s) and its subresource %s (scope %s) differ in scope", parent, out[i].Scope, sub, scopeOf(r))
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kind(r.Group, r.Version, r.Kind), Verbs: r.Verbs,
		})
	}
	return out, nil
}

func scopeOf(r metav1.APIResource) apidiscoveryv2.ResourceScope {
	if r.Namespaced {
		return apidiscoveryv2.ScopeNamespace
	}
	return apidiscoveryv2.ScopeCluster
}
