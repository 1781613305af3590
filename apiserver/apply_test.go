package apiserver_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	mediaApply  = "application/apply-patch+yaml"
	deployments = "/apis/apps/v1/namespaces/default/deployments"
)

// applyDeployment is a Deployment web to apply, with its replicas.
func applyDeployment(replicas string) string {
	return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " + replicas + `
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: nginx, image: nginx}]
`
}

// managers lists the entries of managedFields as
// "manager/operation[/subresource]", sorted (the server sorts them by
// operation, time and manager; the times of one test may tie or not).
func managers(entries []metav1.ManagedFieldsEntry) []string {
	var out []string
	for _, e := range entries {
		s := e.Manager + "/" + string(e.Operation)
		if e.Subresource != "" {
			s += "/" + e.Subresource
		}
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// owns reports whether manager's entry among entries holds the field
// path (in FieldsV1 form, "f:spec" keys).
func owns(tb testing.TB, entries []metav1.ManagedFieldsEntry, manager string, path ...string) bool {
	tb.Helper()
	var e *metav1.ManagedFieldsEntry
	for i := range entries {
		if entries[i].Manager == manager {
			e = &entries[i]
		}
	}
	if e == nil {
		tb.Fatalf("no entry of %s in %v", manager, managers(entries))
	}
	var m map[string]any
	if err := json.Unmarshal(e.FieldsV1.Raw, &m); err != nil {
		tb.Fatal(err)
	}
	for _, p := range path {
		next, ok := m[p].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	return true
}

// decodeDeployment decodes a Deployment answer.
func decodeDeployment(tb testing.TB, body string) *appsv1.Deployment {
	tb.Helper()
	var d appsv1.Deployment
	if err := json.Unmarshal([]byte(body), &d); err != nil {
		tb.Fatalf("decode Deployment: %v\n%s", err, body)
	}
	return &d
}

// TestServerSideApply: an apply creates the Deployment (201, one Apply
// entry of its manager); a second manager changing the replicas gets
// upstream's 409 Status, with the conflicting field as its cause; with
// force=true it takes the field; a merge patch by a client without a
// fieldManager takes it again, as an Update named after its User-Agent;
// apply needs a fieldManager (422) and a dry run creates nothing.
func TestServerSideApply(t *testing.T) {
	ts := startServer(t)
	item := deployments + "/web"
	code, body := ts.do(t, "PATCH", item+"?fieldManager=kubectl", mediaApply, applyDeployment("2"))
	if code != http.StatusCreated {
		t.Fatalf("apply that creates: %d %s", code, body)
	}
	if got := managers(decodeDeployment(t, body).ManagedFields); !reflect.DeepEqual(got, []string{"kubectl/Apply"}) {
		t.Errorf("managedFields after the create: %v, want [kubectl/Apply]", got)
	}

	code, body = ts.do(t, "PATCH", item+"?fieldManager=other", mediaApply, applyDeployment("3"))
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: http.StatusConflict, Reason: metav1.StatusReasonConflict,
		Message: `Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{{Type: "FieldManagerConflict", Message: `conflict with "kubectl"`, Field: ".spec.replicas"}}},
	}
	if got := statusOf(t, body); code != http.StatusConflict || !reflect.DeepEqual(got, want) {
		t.Errorf("second manager's apply: %d %+v, want %+v", code, got, want)
	}

	code, body = ts.do(t, "PATCH", item+"?fieldManager=other&force=true", mediaApply, applyDeployment("3"))
	d := decodeDeployment(t, body)
	if code != http.StatusOK || *d.Spec.Replicas != 3 || !reflect.DeepEqual(managers(d.ManagedFields), []string{"kubectl/Apply", "other/Apply"}) {
		t.Fatalf("forced apply: %d, replicas %d, managedFields %v", code, *d.Spec.Replicas, managers(d.ManagedFields))
	}
	if owns(t, d.ManagedFields, "kubectl", "f:spec", "f:replicas") || !owns(t, d.ManagedFields, "other", "f:spec", "f:replicas") {
		t.Errorf("after force, .spec.replicas should be other's only: %v", d.ManagedFields)
	}

	code, body = ts.do(t, "PATCH", item, mediaMerge, `{"spec":{"replicas":4}}`, "User-Agent", "curl/8.5.0")
	d = decodeDeployment(t, body)
	if code != http.StatusOK || !reflect.DeepEqual(managers(d.ManagedFields), []string{"curl/Update", "kubectl/Apply", "other/Apply"}) {
		t.Fatalf("merge patch: %d, managedFields %v", code, managers(d.ManagedFields))
	}
	if owns(t, d.ManagedFields, "other", "f:spec", "f:replicas") || !owns(t, d.ManagedFields, "curl", "f:spec", "f:replicas") {
		t.Errorf("the update should have taken .spec.replicas from the applier: %v", d.ManagedFields)
	}

	code, body = ts.do(t, "PATCH", item, mediaApply, applyDeployment("2"))
	if st := statusOf(t, body); code != http.StatusUnprocessableEntity || st.Message != `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch` {
		t.Errorf("apply without fieldManager: %d %q", code, st.Message)
	}
	dry := strings.Replace(applyDeployment("1"), "name: web", "name: dry", 1)
	if code, body := ts.do(t, "PATCH", deployments+"/dry?fieldManager=kubectl&dryRun=All", mediaApply, dry); code != http.StatusCreated {
		t.Errorf("dry-run apply: %d %s", code, body)
	}
	if code, _ := ts.do(t, "GET", deployments+"/dry", "", ""); code != http.StatusNotFound {
		t.Errorf("GET after a dry-run apply: %d, want 404", code)
	}
}

// TestManagedFieldsOfCreateAndUpdate: a POST records its fields as an
// Update of the manager its User-Agent names (or its fieldManager); a
// PUT of the whole object by another manager changes one field and
// takes only that one.
func TestManagedFieldsOfCreateAndUpdate(t *testing.T) {
	ts := startServer(t)
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"1","b":"2"}}`
	code, out := ts.do(t, "POST", "/api/v1/namespaces/default/configmaps", mediaJSON, body, "User-Agent", "kubectl/v1.32.0 (linux/amd64) kubernetes/abc")
	var cm unstructured.Unstructured
	if err := json.Unmarshal([]byte(out), &cm.Object); code != http.StatusCreated || err != nil {
		t.Fatalf("create: %d %v %s", code, err, out)
	}
	if got := managers(cm.GetManagedFields()); !reflect.DeepEqual(got, []string{"kubectl/Update"}) {
		t.Errorf("after the create: %v, want [kubectl/Update]", got)
	}
	cm.Object["data"] = map[string]any{"a": "1", "b": "3"}
	put, _ := json.Marshal(cm.Object)
	code, out = ts.do(t, "PUT", "/api/v1/namespaces/default/configmaps/c?fieldManager=editor", mediaJSON, string(put))
	if err := json.Unmarshal([]byte(out), &cm.Object); code != http.StatusOK || err != nil {
		t.Fatalf("update: %d %v %s", code, err, out)
	}
	entries := cm.GetManagedFields()
	if got := managers(entries); !reflect.DeepEqual(got, []string{"editor/Update", "kubectl/Update"}) {
		t.Fatalf("after the update: %v", got)
	}
	if !owns(t, entries, "kubectl", "f:data", "f:a") || owns(t, entries, "kubectl", "f:data", "f:b") || !owns(t, entries, "editor", "f:data", "f:b") || owns(t, entries, "editor", "f:data", "f:a") {
		t.Errorf("data.a should stay kubectl's and data.b become editor's: %v", entries)
	}
}

// TestServerSideApplyCustomResource: apply creates a Widget with its
// manager's fields named by the CRD's schema; an apply to /status is
// recorded with subresource status and does not create a missing object.
func TestServerSideApplyCustomResource(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	widgets := "/apis/example.com/v1/namespaces/default/widgets"
	w := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 3}\n"
	code, body := ts.do(t, "PATCH", widgets+"/w?fieldManager=kubectl", mediaApply, w)
	if code != http.StatusCreated {
		t.Fatalf("apply: %d %s", code, body)
	}
	st := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nstatus: {phase: Ready}\n"
	code, body = ts.do(t, "PATCH", widgets+"/w/status?fieldManager=ctrl", mediaApply, st)
	var u unstructured.Unstructured
	if err := json.Unmarshal([]byte(body), &u.Object); code != http.StatusOK || err != nil {
		t.Fatalf("status apply: %d %v %s", code, err, body)
	}
	entries := u.GetManagedFields()
	if got := managers(entries); !reflect.DeepEqual(got, []string{"ctrl/Apply/status", "kubectl/Apply"}) {
		t.Fatalf("managedFields: %v", got)
	}
	if !owns(t, entries, "kubectl", "f:spec", "f:size") || !owns(t, entries, "ctrl", "f:status", "f:phase") || owns(t, entries, "ctrl", "f:spec") {
		t.Errorf("fields: %v", entries)
	}
	missing := strings.Replace(st, "name: w", "name: none", 1)
	if code, body := ts.do(t, "PATCH", widgets+"/none/status?fieldManager=ctrl", mediaApply, missing); code != http.StatusNotFound {
		t.Errorf("status apply of a missing widget: %d %s, want 404", code, body)
	}
}

// TestScaleManagedFields: a merge patch of deployments/scale by kubectl
// is recorded as kubectl's Update with subresource scale, owning
// .spec.replicas (taken from the applier); an apply of a Scale by
// another manager then conflicts with it in upstream's words.
func TestScaleManagedFields(t *testing.T) {
	ts := startServer(t)
	item := deployments + "/web"
	if code, body := ts.do(t, "PATCH", item+"?fieldManager=other", mediaApply, applyDeployment("2")); code != http.StatusCreated {
		t.Fatalf("apply: %d %s", code, body)
	}
	if code, body := ts.do(t, "PATCH", item+"/scale", mediaMerge, `{"spec":{"replicas":5}}`, "User-Agent", "kubectl/v1.32.0"); code != http.StatusOK {
		t.Fatalf("scale: %d %s", code, body)
	}
	_, body := ts.do(t, "GET", item, "", "")
	d := decodeDeployment(t, body)
	if got := managers(d.ManagedFields); *d.Spec.Replicas != 5 || !reflect.DeepEqual(got, []string{"kubectl/Update/scale", "other/Apply"}) {
		t.Fatalf("after the scale: replicas %d, managedFields %v", *d.Spec.Replicas, got)
	}
	if !owns(t, d.ManagedFields, "kubectl", "f:spec", "f:replicas") || owns(t, d.ManagedFields, "other", "f:spec", "f:replicas") {
		t.Errorf("the scale should own .spec.replicas: %v", d.ManagedFields)
	}
	scale := "apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web}\nspec: {replicas: 6}\n"
	code, body := ts.do(t, "PATCH", item+"/scale?fieldManager=hpa", mediaApply, scale)
	const want = `Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using autoscaling/v1: .spec.replicas`
	if st := statusOf(t, body); code != http.StatusConflict || st.Message != want {
		t.Errorf("apply of a Scale: %d %q, want 409 %q", code, st.Message, want)
	}
}
