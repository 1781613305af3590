package apiserver_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestCRDAPIService: a CRD's group-version gets a local APIService, as
// upstream's crdregistration controller registers it (priorities
// 1000/100, managed continuously), and so appears in /apis, legacy and
// aggregated, with its resources; a request for it is delegated by its
// APIService; deleting the CRD removes the APIService.
func TestCRDAPIService(t *testing.T) {
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	mustCreateWidgetCRD(t, ts)
	c := waitForAvailable(t, ts, "v1.example.com", apiregv1.ConditionTrue)
	if c.Reason != "Local" {
		t.Errorf("Available = %+v, want reason Local", c)
	}
	a := ts.getAPIService(t, "v1.example.com")
	if a.Spec.GroupPriorityMinimum != 1000 || a.Spec.VersionPriority != 100 || a.Labels["kube-aggregator.kubernetes.io/automanaged"] != "true" {
		t.Errorf("APIService v1.example.com: priorities %d/%d, labels %v; want 1000/100, automanaged=true",
			a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority, a.Labels)
	}

	// The aggregator learns of the APIService through its own informer,
	// as upstream's does, so discovery may lag the Available condition
	// read above by a moment: wait for the group, then check the order.
	const wantGroups = "apiregistration.k8s.io apps events.k8s.io authentication.k8s.io authorization.k8s.io autoscaling batch certificates.k8s.io networking.k8s.io policy rbac.authorization.k8s.io storage.k8s.io apiextensions.k8s.io scheduling.k8s.io coordination.k8s.io discovery.k8s.io example.com"
	var names string
	waitFor(t, waitTimeout, "/apis lists example.com", func() bool {
		names = discoveryGroupNames(t, ts)
		return strings.HasSuffix(names, " example.com")
	})
	if names != wantGroups {
		t.Errorf("/apis groups = %s, want %s", names, wantGroups)
	}
	// The aggregated document lags too: the aggregator marks a version
	// Stale, without resources, until it has fetched its discovery (as
	// upstream's does). Wait for the fetch, then check what it brought.
	var last apidiscoveryv2.APIGroupDiscovery
	waitFor(t, waitTimeout, "aggregated /apis to have fetched example.com", func() bool {
		_, body := ts.do(t, http.MethodGet, "/apis", "", "", "Accept", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
		var agg apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal([]byte(body), &agg); err != nil {
			t.Fatal(err)
		}
		last = agg.Items[len(agg.Items)-1]
		return last.Name != "example.com" || !slices.ContainsFunc(last.Versions, func(v apidiscoveryv2.APIVersionDiscovery) bool {
			return v.Freshness == apidiscoveryv2.DiscoveryFreshnessStale
		})
	})
	if last.Name != "example.com" || len(last.Versions) != 1 || len(last.Versions[0].Resources) != 1 || last.Versions[0].Resources[0].Resource != "widgets" {
		t.Errorf("aggregated /apis ends with %+v, want example.com/v1 with widgets", last)
	}

	// The aggregator's proxy table follows the same informer: until it
	// has the APIService, a request is delegated without naming it (and
	// still served). Read until its hop names the APIService.
	const list = "/apis/example.com/v1/namespaces/default/widgets"
	var tr *flow.RequestTrace
	waitFor(t, waitTimeout, "the aggregator to route "+list+" by its APIService", func() bool {
		if code, body := ts.do(t, http.MethodGet, list, "", ""); code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", list, code, body)
		}
		tr = waitForTrace(t, sub, list)
		return !slices.ContainsFunc(tr.Steps, func(st flow.Step) bool {
			return st.Fields["server"] == "aggregator" && strings.Contains(st.Detail, "no APIService claims")
		})
	})
	if got, want := chainHops(tr), "aggregator:delegated kube-apiserver:delegated apiextensions:served"; got != want {
		t.Errorf("hops = %q, want %q", got, want)
	}
	for _, st := range tr.Steps {
		if st.Fields["server"] == "aggregator" && !strings.Contains(st.Detail, "APIService v1.example.com is Local") {
			t.Errorf("aggregator hop = %q, want it to name the local APIService", st.Detail)
		}
	}

	if code, body := ts.do(t, http.MethodDelete, crdPath+"/widgets.example.com", "", ""); code != http.StatusOK {
		t.Fatalf("delete CRD: %d %s", code, body)
	}
	waitFor(t, waitTimeout, "APIService v1.example.com removed", func() bool { return ts.getAPIService(t, "v1.example.com") == nil })
}

// discoveryGroupNames is the legacy /apis group list, space-separated in
// the server's order.
func discoveryGroupNames(t *testing.T, ts *testServer) string {
	t.Helper()
	var groups metav1.APIGroupList
	_, body := ts.do(t, http.MethodGet, "/apis", "", "")
	if err := json.Unmarshal([]byte(body), &groups); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range groups.Groups {
		names = append(names, g.Name)
	}
	return strings.Join(names, " ")
}
