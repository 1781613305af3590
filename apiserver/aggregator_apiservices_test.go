package apiserver_test

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// getAPIService reads an APIService as admin (nil if it does not exist).
func (ts *testServer) getAPIService(t *testing.T, name string) *apiregv1.APIService {
	t.Helper()
	code, body := ts.do(t, http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices/"+name, "", "")
	if code == http.StatusNotFound {
		return nil
	}
	if code != http.StatusOK {
		t.Fatalf("GET apiservice %s: %d %s", name, code, body)
	}
	var a apiregv1.APIService
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	return &a
}

// TestLocalAPIServices: kube-apiserver registers one local APIService per
// built-in group-version it serves, managed "onstart", each Available with
// reason Local; readiness waited for them (autoregister-completion).
func TestLocalAPIServices(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, http.MethodGet, "/readyz?verbose", "", "")
	if code != http.StatusOK || !strings.Contains(body, "[+]autoregister-completion ok\n") {
		t.Fatalf("/readyz?verbose: %d %q, want autoregister-completion ok", code, body)
	}
	code, body = ts.do(t, http.MethodGet, "/apis/apiregistration.k8s.io/v1/apiservices", "", "")
	if code != http.StatusOK {
		t.Fatalf("list apiservices: %d %s", code, body)
	}
	var list apiregv1.APIServiceList
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, a := range list.Items {
		names = append(names, a.Name)
		c := helper.GetAPIServiceConditionByType(&a, apiregv1.Available)
		if a.Spec.Service != nil || c == nil || c.Status != apiregv1.ConditionTrue || c.Reason != "Local" || c.Message != "Local APIServices are always available" {
			t.Errorf("%s: service %v, Available %+v; want local, True, reason Local", a.Name, a.Spec.Service, c)
		}
		if got := a.Labels["kube-aggregator.kubernetes.io/automanaged"]; got != "onstart" {
			t.Errorf("%s: automanaged label %q, want onstart", a.Name, got)
		}
	}
	sort.Strings(names)
	want := "v1. v1.apiextensions.k8s.io v1.apps v1.authentication.k8s.io v1.authorization.k8s.io v1.autoscaling v1.batch v1.certificates.k8s.io v1.coordination.k8s.io v1.discovery.k8s.io v1.events.k8s.io v1.networking.k8s.io v1.policy v1.rbac.authorization.k8s.io v1.scheduling.k8s.io v1.storage.k8s.io v2.autoscaling"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("apiservices = %s, want %s", got, want)
	}
}

// TestAPIServiceValidationAndStatus: creates are validated as upstream
// (422 naming the field), a write of the resource keeps the status, and
// the status subresource changes only the status.
func TestAPIServiceValidationAndStatus(t *testing.T) {
	ts := startServer(t)
	const base = "/apis/apiregistration.k8s.io/v1/apiservices"
	bad := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.widgets.example.com"},
		"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":30000,"versionPriority":10}}`
	code, body := ts.do(t, http.MethodPost, base, "application/json", bad)
	for _, part := range []string{`"code":422`, `metadata.name: Invalid value: \"v1.widgets.example.com\": must be ` + "`spec.version+\\\".\\\"+spec.group`", `spec.groupPriorityMinimum: Invalid value: 30000: must be positive and less than 20000`} {
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, part) {
			t.Fatalf("create of an invalid APIService: %d %s, want 422 with %s", code, body, part)
		}
	}
	good := `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.example.com"},
		"spec":{"group":"example.com","version":"v1","groupPriorityMinimum":1000,"versionPriority":10},
		"status":{"conditions":[{"type":"Available","status":"False","reason":"Made","message":"up"}]}}`
	if code, body := ts.do(t, http.MethodPost, base, "application/json", good); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	a := ts.getAPIService(t, "v1.example.com")
	if c := helper.GetAPIServiceConditionByType(a, apiregv1.Available); c == nil || c.Reason != "Local" {
		t.Fatalf("a new local APIService has Available %+v, want the Local condition (the status sent is dropped)", c)
	}
	patch := `{"status":{"conditions":[{"type":"Available","status":"Maybe"}]}}`
	if code, body := ts.do(t, http.MethodPatch, base+"/v1.example.com/status", "application/merge-patch+json", patch); code != http.StatusUnprocessableEntity || !strings.Contains(body, `Unsupported value: \"Maybe\"`) {
		t.Fatalf("status Maybe: %d %s, want 422 Unsupported value", code, body)
	}
	// The written object is read from the responses: the local
	// availability controller puts the Local condition back soon after.
	patch = `{"spec":{"versionPriority":99},"status":{"conditions":[{"type":"Available","status":"False","reason":"Test","message":"set by the test"}]}}`
	code, body = ts.do(t, http.MethodPatch, base+"/v1.example.com/status", "application/merge-patch+json", patch)
	a = decodeAPIService(t, code, body)
	if c := helper.GetAPIServiceConditionByType(a, apiregv1.Available); a.Spec.VersionPriority != 10 || c == nil || c.Reason != "Test" {
		t.Fatalf("status patch wrote versionPriority %d, Available %+v; want 10 (kept) and reason Test", a.Spec.VersionPriority, c)
	}
	patch = `{"spec":{"versionPriority":20},"status":{"conditions":[{"type":"Available","status":"False","reason":"Ignored","message":"not the status subresource"}]}}`
	code, body = ts.do(t, http.MethodPatch, base+"/v1.example.com", "application/merge-patch+json", patch)
	a = decodeAPIService(t, code, body)
	if c := helper.GetAPIServiceConditionByType(a, apiregv1.Available); a.Spec.VersionPriority != 20 || c == nil || c.Reason == "Ignored" {
		t.Fatalf("patch of the resource wrote versionPriority %d, Available %+v; want 20 and the status kept", a.Spec.VersionPriority, c)
	}
}

// decodeAPIService decodes a 200 response's APIService.
func decodeAPIService(t *testing.T, code int, body string) *apiregv1.APIService {
	t.Helper()
	if code != http.StatusOK {
		t.Fatalf("got %d %s, want 200", code, body)
	}
	var a apiregv1.APIService
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatal(err)
	}
	return &a
}

// waitForAvailable waits until the APIService called name has the
// Available status want and returns its condition.
func waitForAvailable(t *testing.T, ts *testServer, name string, want apiregv1.ConditionStatus) apiregv1.APIServiceCondition {
	t.Helper()
	var got apiregv1.APIServiceCondition
	waitFor(t, waitTimeout, "APIService "+name+" Available="+string(want), func() bool {
		a := ts.getAPIService(t, name)
		if a == nil {
			return false
		}
		c := helper.GetAPIServiceConditionByType(a, apiregv1.Available)
		if c == nil {
			return false
		}
		got = *c
		return c.Status == want
	})
	return got
}
