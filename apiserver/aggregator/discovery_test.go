package aggregator

import (
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func TestLocalAPIServices(t *testing.T) {
	got := LocalAPIServices([]string{"/api", "/api/v1", "/apis", "/apis/coordination.k8s.io", "/apis/coordination.k8s.io/v1",
		"/apis/example.com/v1", "/apis/rbac.authorization.k8s.io/v1", "/healthz"})
	var names []string
	for _, a := range got {
		names = append(names, a.Name)
		if a.Spec.Service != nil {
			t.Errorf("%s has a service; local APIServices have none", a.Name)
		}
	}
	want := []string{"v1.", "v1.coordination.k8s.io", "v1.rbac.authorization.k8s.io"}
	if !reflect.DeepEqual(names, want) {
		t.Fatalf("LocalAPIServices = %v, want %v (example.com has no priority and is skipped)", names, want)
	}
	if p := got[1].Spec; p.GroupPriorityMinimum != 16500 || p.VersionPriority != 15 {
		t.Errorf("coordination priorities = %d/%d, want upstream's 16500/15", p.GroupPriorityMinimum, p.VersionPriority)
	}
}

func apiService(group, version string, groupPrio, versionPrio int32) *apiregv1.APIService {
	return &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
		Spec: apiregv1.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: groupPrio, VersionPriority: versionPrio}}
}

func TestGroupList(t *testing.T) {
	services := []*apiregv1.APIService{
		apiService("", "v1", 18000, 1),
		apiService("example.com", "v1", 1000, 100),
		apiService("example.com", "v2beta1", 1000, 100),
		apiService("metrics.k8s.io", "v1beta1", 100, 100),
		apiService("coordination.k8s.io", "v1", 16500, 15),
	}
	list := GroupList(services)
	var got []string
	for _, g := range list.Groups {
		got = append(got, g.Name+"="+g.PreferredVersion.Version)
	}
	want := []string{"apiregistration.k8s.io=v1", "coordination.k8s.io=v1", "example.com=v1", "metrics.k8s.io=v1beta1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("groups = %v, want %v", got, want)
	}
	if g := Group(services, "example.com"); g == nil || len(g.Versions) != 2 || g.Versions[1].Version != "v2beta1" {
		t.Fatalf("Group(example.com) = %+v, want v1 then v2beta1: GA first at equal priority", g)
	}
	if g := Group(services, "nosuch.example.com"); g != nil {
		t.Fatalf("Group(nosuch) = %+v, want nil (delegated)", g)
	}
}

func TestAggregatedList(t *testing.T) {
	docs := []VersionDocument{
		{GroupVersion: schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}, Priority: Priority{100, 100}, Stale: true},
		{GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v1"}, Priority: CRDPriority},
		{GroupVersion: schema.GroupVersion{Group: "example.com", Version: "v2"}, Priority: CRDPriority},
		{GroupVersion: schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}, Priority: RegistrationPriority},
		{GroupVersion: schema.GroupVersion{Group: "rbac.authorization.k8s.io", Version: "v1"}, Priority: Priority{17000, 15}},
	}
	list := AggregatedList(docs)
	var got []string
	for _, g := range list.Items {
		for _, v := range g.Versions {
			got = append(got, g.Name+"/"+v.Version+":"+string(v.Freshness))
		}
	}
	want := []string{"apiregistration.k8s.io/v1:Current", "rbac.authorization.k8s.io/v1:Current",
		"example.com/v2:Current", "example.com/v1:Current", "metrics.k8s.io/v1beta1:Stale"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
}

func TestResourcesFromList(t *testing.T) {
	list := &metav1.APIResourceList{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "pods", SingularName: "pod", Namespaced: true, Kind: "Pod", Verbs: []string{"get"}},
		{Name: "pods/binding", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}},
		{Name: "pods/status", Namespaced: true, Kind: "Pod", Verbs: []string{"get"}},
		{Name: "nodes/status", Namespaced: true, Kind: "Node"},
		{Name: "nodes", Kind: "Node"},
	}}
	if _, err := ResourcesFromList(list, schema.GroupVersion{Version: "v1"}, true); err == nil {
		t.Fatal("a namespaced subresource of a cluster-scoped resource: got no error")
	}
	list.APIResources = list.APIResources[:3]
	got, err := ResourcesFromList(list, schema.GroupVersion{Version: "v1"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Subresources) != 2 {
		t.Fatalf("got %+v, want pods with two subresources", got)
	}
	if k := got[0].Subresources[0].ResponseKind; k.Version != "v1" || k.Kind != "Binding" {
		t.Errorf("binding's kind = %+v, want v1 Binding (filled)", k)
	}
	remote, _ := ResourcesFromList(list, schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}, false)
	if k := remote[0].ResponseKind; k.Version != "" {
		t.Errorf("unfilled kind = %+v, want the list's own (empty version)", k)
	}
}
