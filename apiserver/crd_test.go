package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	crdPath     = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	widgetsPath = "/apis/example.com/v1/namespaces/default/widgets"
	mediaYAML   = "application/yaml"
	mediaJSON   = "application/json"
	mediaMerge  = "application/merge-patch+json"
)

// readTestdata reads a file of cluster/testdata, the samples the
// scenarios and the kubectl tests share.
func readTestdata(tb testing.TB, name string) string {
	tb.Helper()
	b, err := os.ReadFile("../cluster/testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// getCRD reads the CRD called name.
func (ts *testServer) getCRD(tb testing.TB, name string) (*apiextensionsv1.CustomResourceDefinition, int) {
	tb.Helper()
	code, body := ts.do(tb, "GET", crdPath+"/"+name, "", "")
	if code != http.StatusOK {
		return nil, code
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(body), &crd); err != nil {
		tb.Fatalf("decode CRD: %v\n%s", err, body)
	}
	return &crd, code
}

// mustCreateWidgetCRD creates cluster/testdata/crd.yaml and waits until
// it is established.
func mustCreateWidgetCRD(tb testing.TB, ts *testServer) *apiextensionsv1.CustomResourceDefinition {
	tb.Helper()
	if code, body := ts.do(tb, "POST", crdPath, mediaYAML, readTestdata(tb, "crd.yaml")); code != http.StatusCreated {
		tb.Fatalf("create CRD: %d %s", code, body)
	}
	var crd *apiextensionsv1.CustomResourceDefinition
	waitFor(tb, waitTimeout, "CRD established", func() bool {
		crd, _ = ts.getCRD(tb, "widgets.example.com")
		for _, c := range crd.Status.Conditions {
			if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
				return true
			}
		}
		return false
	})
	return crd
}

// condition returns the status, reason and message of crd's condition t.
func condition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType) string {
	for _, c := range crd.Status.Conditions {
		if c.Type == t {
			return string(c.Status) + "/" + c.Reason + ": " + c.Message
		}
	}
	return "absent"
}

func TestCRDEstablished(t *testing.T) {
	ts := startServer(t)
	crd := mustCreateWidgetCRD(t, ts)
	for _, tt := range []struct {
		cond apiextensionsv1.CustomResourceDefinitionConditionType
		want string
	}{
		{apiextensionsv1.NamesAccepted, "True/NoConflicts: no conflicts found"},
		{apiextensionsv1.Established, "True/InitialNamesAccepted: the initial names have been accepted"},
	} {
		if got := condition(crd, tt.cond); got != tt.want {
			t.Errorf("condition %s = %q, want %q", tt.cond, got, tt.want)
		}
	}
	if an := crd.Status.AcceptedNames; an.Kind != "Widget" || an.ListKind != "WidgetList" || an.Plural != "widgets" || len(an.ShortNames) != 1 {
		t.Errorf("acceptedNames = %+v, want spec.names", an)
	}
	if got := crd.Status.StoredVersions; len(got) != 1 || got[0] != "v1" {
		t.Errorf("storedVersions = %v, want [v1]", got)
	}
	// The same names again, in another CRD of the group: a conflict.
	twin := strings.Replace(readTestdata(t, "crd.yaml"), "name: widgets.example.com", "name: gadgets.example.com", 1)
	twin = strings.Replace(twin, "plural: widgets", "plural: gadgets", 1)
	twin = strings.Replace(twin, "singular: widget", "singular: gadget", 1)
	if code, body := ts.do(t, "POST", crdPath, mediaYAML, twin); code != http.StatusCreated {
		t.Fatalf("create gadgets CRD: %d %s", code, body)
	}
	var gadgets *apiextensionsv1.CustomResourceDefinition
	waitFor(t, waitTimeout, "gadgets CRD named", func() bool {
		gadgets, _ = ts.getCRD(t, "gadgets.example.com")
		return condition(gadgets, apiextensionsv1.NamesAccepted) != "absent"
	})
	if got, want := condition(gadgets, apiextensionsv1.NamesAccepted), `False/ListKindConflict: "WidgetList" is already in use`; got != want {
		t.Errorf("gadgets NamesAccepted = %q, want %q", got, want)
	}
	if got, want := condition(gadgets, apiextensionsv1.Established), "False/NotAccepted: not all names are accepted"; got != want {
		t.Errorf("gadgets Established = %q, want %q", got, want)
	}
}

func TestCRDValidation(t *testing.T) {
	ts := startServer(t)
	crd := readTestdata(t, "crd.yaml")
	tests := []struct {
		name, old, new string
		wantCause      string
	}{
		{"name not plural.group", "name: widgets.example.com", "name: widget.example.com", `must be spec.names.plural+"."+spec.group`},
		{"no storage version", "storage: true", "storage: false", "must have exactly one version marked as storage version"},
		{"bad schema type", "type: integer\n                minimum: 1", "type: int\n                minimum: 1", `Unsupported value: "int"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := ts.do(t, "POST", crdPath, mediaYAML, strings.Replace(crd, tt.old, tt.new, 1))
			if code != http.StatusUnprocessableEntity || !strings.Contains(statusOf(t, body).Message, tt.wantCause) {
				t.Errorf("create = %d %s, want 422 with %q", code, body, tt.wantCause)
			}
		})
	}
}

func TestCRDDeleteRemovesCustomResources(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	if code, body := ts.do(t, "POST", widgetsPath, mediaYAML, readTestdata(t, "widget.yaml")); code != http.StatusCreated {
		t.Fatalf("create widget: %d %s", code, body)
	}
	key := "/registry/example.com/widgets/default/x"
	if resp, err := ts.etcd.Get(context.Background(), key); err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd key %s: %v, %v; want the widget", key, resp, err)
	}
	code, body := ts.do(t, "DELETE", crdPath+"/widgets.example.com", "", "")
	if code != http.StatusOK || !strings.Contains(body, "InstanceDeletionPending") {
		t.Fatalf("delete CRD = %d %s, want 200 with the Terminating condition", code, body)
	}
	waitFor(t, waitTimeout, "CRD gone", func() bool {
		_, code := ts.getCRD(t, "widgets.example.com")
		return code == http.StatusNotFound
	})
	if resp, err := ts.etcd.Get(context.Background(), "/registry/example.com/widgets/", clientv3.WithPrefix()); err != nil || len(resp.Kvs) != 0 {
		t.Errorf("after the CRD's deletion etcd holds %v (err %v), want no widgets", resp.Kvs, err)
	}
	// The handler learns of the deletion from its watch, a moment later.
	waitFor(t, waitTimeout, "widgets no longer served", func() bool {
		code, _ := ts.do(t, "GET", widgetsPath, "", "")
		return code == http.StatusNotFound
	})
	waitFor(t, waitTimeout, "apis/example.com/v1 gone from the OpenAPI index", func() bool {
		_, index := ts.do(t, "GET", "/openapi/v3", "", "")
		return !strings.Contains(index, "apis/example.com/v1")
	})
}

// statusOf decodes a Status body.
func statusOf(tb testing.TB, body string) metav1.Status {
	tb.Helper()
	var st metav1.Status
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		tb.Fatalf("decode Status: %v\n%s", err, body)
	}
	return st
}
