package apiserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEvictionHTTP: discovery lists pods/eviction as upstream does (kind
// Eviction of policy/v1, create only: kubectl drain looks for it); a POST
// of a policy/v1 or policy/v1beta1 Eviction of a pending pod deletes it
// and answers 201 Success; a body of another kind is refused.
func TestEvictionHTTP(t *testing.T) {
	ts := startServer(t)
	var list metav1.APIResourceList
	_, body := ts.do(t, "GET", "/api/v1", "", "")
	if err := json.Unmarshal([]byte(body), &list); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, r := range list.APIResources {
		if r.Name == "pods/eviction" {
			found = true
			if r.Group != "policy" || r.Version != "v1" || r.Kind != "Eviction" || strings.Join(r.Verbs, ",") != "create" || !r.Namespaced {
				t.Errorf("pods/eviction = %+v, want policy/v1 Eviction, create", r)
			}
		}
	}
	if !found {
		t.Fatal("discovery does not list pods/eviction")
	}
	for _, version := range []string{"v1", "v1beta1"} {
		name := "web-" + version
		pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
		if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", pod); code != 201 {
			t.Fatalf("create pod: %d %s", code, body)
		}
		ev := `{"apiVersion":"policy/` + version + `","kind":"Eviction","metadata":{"name":"` + name + `"}}`
		code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/"+name+"/eviction", "application/json", ev)
		if code != 201 || !strings.Contains(body, `"status":"Success"`) || !strings.Contains(body, `"code":201`) {
			t.Errorf("evict (policy/%s): %d %s, want 201 Success", version, code, body)
		}
		if code, _ := ts.do(t, "GET", "/api/v1/namespaces/default/pods/"+name, "", ""); code != 404 {
			t.Errorf("pod after its eviction (policy/%s): %d, want 404", version, code)
		}
	}
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/x/eviction", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}`)
	if code != 400 {
		t.Errorf("evict with a ConfigMap body: %d %s, want 400", code, body)
	}
}
