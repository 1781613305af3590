package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// widgetBody is a Widget named name with spec.
func widgetBody(name, spec string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"` + name + `"},"spec":` + spec + `}`
}

func decodeWidget(tb testing.TB, body string) *unstructured.Unstructured {
	tb.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(body)); err != nil {
		tb.Fatalf("decode widget: %v\n%s", err, body)
	}
	return u
}

func TestCustomResourceCreate(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	tests := []struct {
		name, query, body string
		wantCode          int
		// wantCauses are the causes of a 422 as field: message.
		wantCauses []string
		wantMsg    string // part of a failure's message
		wantSpec   string // spec of the widget created
	}{
		{name: "defaults", body: widgetBody("a", `{"size":2}`), wantCode: 201, wantSpec: `{"color":"blue","replicas":1,"size":2}`},
		{name: "unknown field pruned (Warn)", body: widgetBody("b", `{"size":2,"shape":"round"}`), wantCode: 201, wantSpec: `{"color":"blue","replicas":1,"size":2}`},
		{name: "unknown field Strict", query: "?fieldValidation=Strict", body: widgetBody("c", `{"size":2,"shape":"round"}`), wantCode: 400,
			wantMsg: `Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.shape"`},
		{name: "preserve unknown fields", body: widgetBody("d", `{"size":2,"extra":{"any":"thing"}}`), wantCode: 201, wantSpec: `{"color":"blue","extra":{"any":"thing"},"replicas":1,"size":2}`},
		{name: "schema violations", body: widgetBody("e", `{"size":"big","color":"pink","label":"TOOLONG"}`), wantCode: 422, wantCauses: []string{
			`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`,
			`spec.color: Unsupported value: "pink": supported values: "red", "green", "blue"`,
			// kube-openapi checks a string's pattern only once its length passes.
			`spec.label: Too long: may not be more than 5 bytes`,
		}},
		{name: "pattern", body: widgetBody("h", `{"size":1,"label":"ABC"}`), wantCode: 422, wantCauses: []string{
			`spec.label: Invalid value: "ABC": spec.label in body should match '^[a-z]+$'`}},
		{name: "required", body: widgetBody("f", `{"color":"red"}`), wantCode: 422, wantCauses: []string{`spec.size: Required value`}},
		{name: "maximum", body: widgetBody("g", `{"size":11}`), wantCode: 422, wantCauses: []string{`spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := ts.do(t, "POST", widgetsPath+tt.query, mediaJSON, tt.body)
			if code != tt.wantCode {
				t.Fatalf("create = %d %s, want %d", code, body, tt.wantCode)
			}
			switch {
			case tt.wantSpec != "":
				u := decodeWidget(t, body)
				got, _ := json.Marshal(u.Object["spec"])
				if string(got) != tt.wantSpec || u.GetGeneration() != 1 {
					t.Errorf("created spec %s generation %d, want %s generation 1", got, u.GetGeneration(), tt.wantSpec)
				}
			case tt.wantCauses != nil:
				st := statusOf(t, body)
				var got []string
				for _, c := range st.Details.Causes {
					got = append(got, c.Field+": "+c.Message)
				}
				// kube-openapi visits properties in map order: compare as sets.
				want := slices.Clone(tt.wantCauses)
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("causes:\n got %q\nwant %q", got, want)
				}
			default:
				if msg := statusOf(t, body).Message; !strings.Contains(msg, tt.wantMsg) {
					t.Errorf("message = %q, want %q", msg, tt.wantMsg)
				}
			}
		})
	}
}

func TestCustomResourceUnknownFieldWarning(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	req, _ := http.NewRequest("POST", ts.url+widgetsPath, strings.NewReader(widgetBody("w", `{"size":2,"shape":"round"}`)))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", mediaJSON)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.Header.Get("Warning"), `299 - "unknown field \"spec.shape\""`; got != want {
		t.Errorf("Warning = %q, want %q", got, want)
	}
}

func TestCustomResourceUpdates(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	if code, body := ts.do(t, "POST", widgetsPath, mediaJSON, widgetBody("x", `{"size":2}`)); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	item := widgetsPath + "/x"
	tests := []struct {
		name, method, path, contentType, body string
		wantCode                              int
		wantMsg                               string // part of the answer
		wantGeneration                        int64
	}{
		{"merge patch of spec bumps generation", "PATCH", item, mediaMerge, `{"spec":{"size":4}}`, 200, `"size":4`, 2},
		{"json patch", "PATCH", item, "application/json-patch+json", `[{"op":"replace","path":"/spec/color","value":"red"}]`, 200, `"color":"red"`, 3},
		{"strategic merge patch is 415", "PATCH", item, "application/strategic-merge-patch+json", `{"spec":{"size":5}}`, 415,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml", 0},
		{"patch violating the schema", "PATCH", item, mediaMerge, `{"spec":{"size":0}}`, 422, "should be greater than or equal to 1", 0},
		{"status ignored on the main resource", "PATCH", item, mediaMerge, `{"status":{"phase":"Ready"}}`, 200, `"size":4`, 3},
		{"status subresource, no generation bump", "PATCH", item + "/status", mediaMerge, `{"status":{"phase":"Ready","replicas":1}}`, 200, `"phase":"Ready"`, 3},
		{"metadata change, no generation bump", "PATCH", item, mediaMerge, `{"metadata":{"labels":{"a":"b"}}}`, 200, `"a":"b"`, 3},
		{"scale read", "GET", item + "/scale", "", "", 200, `"kind":"Scale"`, 0},
		{"scale patch sets specReplicasPath", "PATCH", item + "/scale", mediaMerge, `{"spec":{"replicas":3}}`, 200, `"spec":{"replicas":3},"status":{"replicas":1}`, 0},
		{"unknown subresource", "GET", item + "/nosuch", "", "", 404, "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := ts.do(t, tt.method, tt.path, tt.contentType, tt.body)
			if code != tt.wantCode || !strings.Contains(body, tt.wantMsg) {
				t.Fatalf("%s %s = %d %s, want %d with %q", tt.method, tt.path, code, body, tt.wantCode, tt.wantMsg)
			}
			if tt.wantGeneration != 0 {
				if g := decodeWidget(t, body).GetGeneration(); g != tt.wantGeneration {
					t.Errorf("generation = %d, want %d", g, tt.wantGeneration)
				}
			}
		})
	}
	_, body := ts.do(t, "GET", item, "", "")
	if r, _, _ := unstructured.NestedInt64(decodeWidget(t, body).Object, "spec", "replicas"); r != 3 {
		t.Errorf("spec.replicas after the scale patch = %d, want 3", r)
	}
}

func TestCustomResourceTableAndDiscovery(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	if code, body := ts.do(t, "POST", widgetsPath, mediaJSON, widgetBody("x", `{"size":2}`)); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	code, body := ts.do(t, "GET", widgetsPath, "", "", "Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	var table metav1.Table
	if err := json.Unmarshal([]byte(body), &table); code != 200 || err != nil {
		t.Fatalf("table = %d %s (%v)", code, body, err)
	}
	var cols []string
	for _, c := range table.ColumnDefinitions {
		cols = append(cols, c.Name)
	}
	if got := strings.Join(cols, ","); got != "Name,Size,Color,Age" {
		t.Errorf("columns = %s, want Name,Size,Color,Age", got)
	}
	if len(table.Rows) != 1 || table.Rows[0].Cells[0] != "x" || table.Rows[0].Cells[2] != "blue" {
		t.Errorf("rows = %v, want x with color blue", table.Rows)
	}

	// Discovery follows the CRD's Established condition as the handler's
	// CRD informer sees it, which may come after the custom resources
	// are served (upstream's discovery controller is as eventual).
	waitFor(t, waitTimeout, "discovery of example.com/v1", func() bool {
		code, body = ts.do(t, "GET", "/apis/example.com/v1", "", "")
		return code != http.StatusNotFound
	})
	var list metav1.APIResourceList
	if err := json.Unmarshal([]byte(body), &list); code != 200 || err != nil {
		t.Fatalf("discovery = %d %s", code, body)
	}
	got := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		got[r.Name] = r
	}
	w := got["widgets"]
	if w.Kind != "Widget" || !w.Namespaced || w.SingularName != "widget" || strings.Join(w.ShortNames, ",") != "wd" ||
		strings.Join(w.Verbs, ",") != "delete,deletecollection,get,list,patch,create,update,watch" || w.StorageVersionHash == "" {
		t.Errorf("widgets in discovery = %+v", w)
	}
	if s := got["widgets/scale"]; s.Group != "autoscaling" || s.Version != "v1" || s.Kind != "Scale" {
		t.Errorf("widgets/scale = %+v, want autoscaling/v1 Scale", s)
	}
	if _, ok := got["widgets/status"]; !ok {
		t.Errorf("no widgets/status in %v", list.APIResources)
	}
	if code, body := ts.do(t, "GET", "/apis/example.com", "", ""); code != 200 || !strings.Contains(body, `"preferredVersion":{"groupVersion":"example.com/v1","version":"v1"}`) {
		t.Errorf("group discovery = %d %s", code, body)
	}
	// deletecollection empties the namespace's widgets.
	if code, body := ts.do(t, "DELETE", widgetsPath, "", ""); code != 200 || !strings.Contains(body, `"kind":"WidgetList"`) {
		t.Errorf("deletecollection = %d %s, want 200 and the WidgetList deleted", code, body)
	}
	if _, body := ts.do(t, "GET", widgetsPath, "", ""); !strings.Contains(body, `"items":[]`) {
		t.Errorf("list after deletecollection = %s, want no items", body)
	}
}

func TestCustomResourceOpenAPI(t *testing.T) {
	ts := startServer(t)
	_, before := ts.do(t, "GET", "/openapi/v3", "", "")
	mustCreateWidgetCRD(t, ts)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	waitFor(t, waitTimeout, "apis/example.com/v1 in the OpenAPI index", func() bool {
		_, body := ts.do(t, "GET", "/openapi/v3", "", "")
		return json.Unmarshal([]byte(body), &index) == nil && index.Paths["apis/example.com/v1"].ServerRelativeURL != ""
	})
	if strings.Contains(before, "apis/example.com/v1") {
		t.Errorf("index listed apis/example.com/v1 before the CRD: %s", before)
	}
	code, doc := ts.do(t, "GET", index.Paths["apis/example.com/v1"].ServerRelativeURL, "", "")
	for _, want := range []string{`"com.example.v1.Widget"`, `"x-kubernetes-group-version-kind":[{"group":"example.com","kind":"Widget","version":"v1"}]`,
		`How big the widget is, from 1 to 10.`, `"name":"fieldValidation"`, `"/apis/example.com/v1/namespaces/{namespace}/widgets/{name}"`} {
		if code != 200 || !strings.Contains(doc, want) {
			t.Errorf("document (%d) lacks %s", code, want)
		}
	}
}

func TestUnknownGroupFallsThrough(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, "GET", "/apis/nosuch.example.com/v1/things", "", "")
	if code != http.StatusNotFound {
		t.Errorf("GET an unknown group = %d %s, want 404", code, body)
	}
}

// Defaults apply on read too: an object stored without a defaulted field
// (by an older CRD, or written to etcd directly) is served with it.
func TestCustomResourceDefaultedOnRead(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	raw := `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"old","namespace":"default","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"size":2,"gone":true}}`
	if _, err := ts.etcd.Put(context.Background(), "/registry/example.com/widgets/default/old", raw); err != nil {
		t.Fatal(err)
	}
	code, body := ts.do(t, "GET", widgetsPath+"/old", "", "")
	if code != 200 {
		t.Fatalf("get = %d %s", code, body)
	}
	got, _ := json.Marshal(decodeWidget(t, body).Object["spec"])
	if want := `{"color":"blue","replicas":1,"size":2}`; string(got) != want {
		t.Errorf("spec read = %s, want %s (defaulted and pruned on read)", got, want)
	}
}

// TestCustomResourceScalePutProtobuf: a PUT of a custom resource's
// /scale as kube-controller-manager's scale client sends it (a protobuf
// Scale, "Accept: application/vnd.kubernetes.protobuf, */*") sets
// specReplicasPath and is answered with the Scale in JSON, the custom
// resource's own form.
func TestCustomResourceScalePutProtobuf(t *testing.T) {
	ts := startServer(t)
	mustCreateWidgetCRD(t, ts)
	if code, body := ts.do(t, "POST", widgetsPath, mediaJSON, widgetBody("p", `{"size":2}`)); code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	sc := &autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: autoscalingv1.ScaleSpec{Replicas: 5}}
	var buf bytes.Buffer
	if err := registry.Protobuf.Encode(sc, &buf); err != nil {
		t.Fatal(err)
	}
	code, body := ts.do(t, "PUT", widgetsPath+"/p/scale", "application/vnd.kubernetes.protobuf", buf.String(),
		"Accept", "application/vnd.kubernetes.protobuf, */*")
	if code != 200 || !strings.Contains(body, `"spec":{"replicas":5}`) {
		t.Fatalf("PUT /scale (protobuf) = %d %s, want 200 with spec.replicas 5 in JSON", code, body)
	}
	_, body = ts.do(t, "GET", widgetsPath+"/p", "", "")
	if r, _, _ := unstructured.NestedInt64(decodeWidget(t, body).Object, "spec", "replicas"); r != 5 {
		t.Errorf("spec.replicas after the protobuf scale PUT = %d, want 5", r)
	}
}
