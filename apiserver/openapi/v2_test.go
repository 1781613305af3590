package openapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	appsv1 "k8s.io/api/apps/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	kproto "k8s.io/kube-openapi/pkg/util/proto"

	"github.com/kubesim/kubesim/apiserver/apiextensions"
)

// v2Raw fetches the v2 document as JSON and decodes it generically.
func v2Raw(tb testing.TB, v *V2Handler) (map[string]any, *httptest.ResponseRecorder) {
	tb.Helper()
	rec := get(tb, v, PathV2, nil)
	if rec.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d: %s", PathV2, rec.Code, rec.Body)
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		tb.Fatalf("v2 document is not JSON: %v", err)
	}
	return m, rec
}

// at walks a decoded JSON value by object keys.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func TestV2Document(t *testing.T) {
	v := NewV2(MustNew(t, testResources()))
	doc, rec := v2Raw(t, v)
	if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	if doc["swagger"] != "2.0" || at(doc, "info", "title") != "Kubernetes" {
		t.Errorf("swagger = %v, info = %v; want 2.0 and title Kubernetes", doc["swagger"], doc["info"])
	}
	if bytes.Contains(rec.Body.Bytes(), []byte("#/components/")) {
		t.Errorf("the v2 document still refers to #/components/")
	}
	deploy := at(doc, "definitions", "io.k8s.api.apps.v1.Deployment")
	if got := fmt.Sprint(at(deploy, extGVK)); got != "[map[group:apps kind:Deployment version:v1]]" {
		t.Errorf("Deployment %s = %s", extGVK, got)
	}
	spec := at(deploy, "properties", "spec").(map[string]any)
	if spec["$ref"] != "#/definitions/io.k8s.api.apps.v1.DeploymentSpec" || spec["description"] == nil || spec["allOf"] != nil {
		t.Errorf("Deployment.spec = %v, want a $ref to DeploymentSpec with its description beside it", spec)
	}
	containers := at(doc, "definitions", "io.k8s.api.core.v1.PodSpec", "properties", "containers")
	if at(containers, extPatchStrategy) != "merge" || at(containers, extPatchMergeKey) != "name" {
		t.Errorf("PodSpec.containers = %v, want patch strategy merge on name", containers)
	}
	if got := at(doc, "definitions", "io.k8s.apimachinery.pkg.util.intstr.IntOrString"); at(got, "type") != "string" || at(got, "oneOf") != nil {
		t.Errorf("IntOrString = %v, want type string and no oneOf", got)
	}
	if got := at(doc, "securityDefinitions", "BearerToken"); fmt.Sprint(got) != "map[description:Bearer Token authentication in:header name:authorization type:apiKey]" {
		t.Errorf("securityDefinitions.BearerToken = %v", got)
	}
	if got := fmt.Sprint(doc["security"]); got != "[map[BearerToken:[]]]" {
		t.Errorf("security = %s", got)
	}
}

func TestV2Operations(t *testing.T) {
	v := NewV2(MustNew(t, testResources()))
	doc, _ := v2Raw(t, v)
	item := at(doc, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments")
	list := at(item, "get")
	if at(list, "operationId") != "listAppsV1NamespacedDeployment" || at(list, "x-kubernetes-action") != "list" {
		t.Fatalf("GET deployments = %v, want listAppsV1NamespacedDeployment (action list)", list)
	}
	if got := fmt.Sprint(at(list, "produces")); got != "[application/json application/json;stream=watch]" {
		t.Errorf("list produces %s", got)
	}
	if got := at(list, "responses", "200", "schema", "$ref"); got != "#/definitions/io.k8s.api.apps.v1.DeploymentList" {
		t.Errorf("list 200 schema $ref = %v", got)
	}
	params := map[string]map[string]any{}
	collect := func(v any) {
		ps, _ := v.([]any)
		for _, p := range ps {
			m := p.(map[string]any)
			params[m["name"].(string)] = m
		}
	}
	collect(at(item, "parameters"))
	collect(at(list, "parameters"))
	if p := params["limit"]; p["in"] != "query" || p["type"] != "integer" || p["schema"] != nil {
		t.Errorf("limit parameter = %v, want a query parameter of type integer without schema", p)
	}
	if p := params["namespace"]; p["in"] != "path" || p["type"] != "string" || p["required"] != true {
		t.Errorf("namespace parameter = %v, want a required path string", p)
	}

	create := at(item, "post")
	body := findParam(at(create, "parameters"), "body")
	if body["in"] != "body" || body["required"] != true || at(body, "schema", "$ref") != "#/definitions/io.k8s.api.apps.v1.Deployment" {
		t.Errorf("create body parameter = %v", body)
	}
	if got := fmt.Sprint(at(create, "consumes")); got != "[*/*]" {
		t.Errorf("create consumes %s, want [*/*]", got)
	}
	patch := at(doc, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch")
	if got := fmt.Sprint(at(patch, "consumes")); got != "[application/json-patch+json application/merge-patch+json application/strategic-merge-patch+json]" {
		t.Errorf("patch consumes %s", got)
	}
	if got := fmt.Sprint(at(patch, "schemes")); got != "[https]" {
		t.Errorf("patch schemes %s", got)
	}
}

func findParam(list any, name string) map[string]any {
	ps, _ := list.([]any)
	for _, p := range ps {
		if m, _ := p.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// TestV2HasEveryV3Schema checks the merge: every component schema and
// every path of every v3 document is in the one v2 document, and a kind
// registered in several groups lists all of them.
func TestV2HasEveryV3Schema(t *testing.T) {
	h := MustNew(t, testResources())
	doc, _ := v2Raw(t, NewV2(h))
	defs, _ := doc["definitions"].(map[string]any)
	paths, _ := doc["paths"].(map[string]any)
	for key := range h.docs {
		v3 := MustRawDocument(t, h, key)
		for name := range at(v3, "components", "schemas").(map[string]any) {
			if defs[name] == nil {
				t.Errorf("%s: schema %s is not a v2 definition", key, name)
			}
		}
		for p := range v3["paths"].(map[string]any) {
			if paths[p] == nil {
				t.Errorf("%s: path %s is not in the v2 document", key, p)
			}
		}
	}
	var groups []string
	for _, g := range at(defs, "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", extGVK).([]any) {
		groups = append(groups, fmt.Sprint(at(g, "group"), "/", at(g, "version")))
	}
	want := "[/v1 apps/v1 coordination.k8s.io/v1 rbac.authorization.k8s.io/v1]"
	if fmt.Sprint(groups) != want {
		t.Errorf("DeleteOptions kinds are of %v, want %s", groups, want)
	}
}

func TestV2Protobuf(t *testing.T) {
	v := NewV2(MustNew(t, testResources()))
	jsonDoc, jsonRec := v2Raw(t, v)
	for _, accept := range []string{mediaTypeV2ProtobufOldName, mediaTypeV2Protobuf} {
		t.Run(accept, func(t *testing.T) {
			rec := get(t, v, PathV2, map[string]string{"Accept": accept})
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != mediaTypeV2Protobuf {
				t.Fatalf("status %d, Content-Type %q; want 200 and %s", rec.Code, rec.Header().Get("Content-Type"), mediaTypeV2Protobuf)
			}
			var doc openapi_v2.Document
			if err := proto.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
				t.Fatalf("protobuf does not decode: %v", err)
			}
			if got, want := len(doc.GetDefinitions().GetAdditionalProperties()), len(jsonDoc["definitions"].(map[string]any)); got != want || want == 0 {
				t.Errorf("protobuf has %d definitions, JSON %d", got, want)
			}
			if len(doc.GetPaths().GetPath()) != len(jsonDoc["paths"].(map[string]any)) {
				t.Errorf("protobuf has %d paths, JSON %d", len(doc.GetPaths().GetPath()), len(jsonDoc["paths"].(map[string]any)))
			}
			if rec.Header().Get("Etag") != jsonRec.Header().Get("Etag") {
				t.Errorf("protobuf ETag %s differs from the JSON one %s", rec.Header().Get("Etag"), jsonRec.Header().Get("Etag"))
			}
		})
	}
}

func TestV2Responses(t *testing.T) {
	v := NewV2(MustNew(t, testResources()))
	_, first := v2Raw(t, v)
	etag := first.Header().Get("Etag")
	if want := strconv.Quote(etagOf(first.Body.Bytes())); etag != want {
		t.Errorf("Etag = %s, want the SHA-512 of the body %s", etag, want)
	}
	if got := first.Header().Values("Vary"); fmt.Sprint(got) != "[Accept-Encoding Accept]" {
		t.Errorf("Vary = %v", got)
	}
	tests := []struct {
		name     string
		header   map[string]string
		wantCode int
		wantType string
	}{
		{"If-None-Match with the ETag", map[string]string{"If-None-Match": etag}, http.StatusNotModified, ""},
		{"If-None-Match with the protobuf request", map[string]string{"If-None-Match": etag, "Accept": mediaTypeV2Protobuf}, http.StatusNotModified, ""},
		{"If-None-Match with an old ETag", map[string]string{"If-None-Match": `"OLD"`}, 200, "application/json"},
		{"any type", map[string]string{"Accept": "*/*"}, 200, "application/json"},
		{"protobuf preferred", map[string]string{"Accept": "application/json;q=0.5, " + mediaTypeV2Protobuf}, 200, mediaTypeV2Protobuf},
		{"JSON preferred", map[string]string{"Accept": mediaTypeV2Protobuf + ";q=0.5, application/json"}, 200, "application/json"},
		{"application/*", map[string]string{"Accept": "application/*"}, 200, "application/json"},
		{"yaml only", map[string]string{"Accept": "application/yaml"}, http.StatusNotAcceptable, ""},
		{"v3 protobuf only", map[string]string{"Accept": "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"}, http.StatusNotAcceptable, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(t, v, PathV2, tt.header)
			if rec.Code != tt.wantCode {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantCode)
			}
			if tt.wantType != "" && rec.Header().Get("Content-Type") != tt.wantType {
				t.Errorf("Content-Type = %q, want %q", rec.Header().Get("Content-Type"), tt.wantType)
			}
		})
	}
}

func TestV2Gzip(t *testing.T) {
	v := NewV2(MustNew(t, testResources()))
	_, plain := v2Raw(t, v)
	if plain.Header().Get("Content-Encoding") != "" {
		t.Errorf("gzipped without Accept-Encoding")
	}
	for _, enc := range []string{"gzip", "deflate, gzip;q=0.8"} {
		rec := get(t, v, PathV2, map[string]string{"Accept-Encoding": enc})
		if rec.Code != 200 || rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Length") != "" {
			t.Fatalf("%s: status %d, Content-Encoding %q, Content-Length %q", enc, rec.Code, rec.Header().Get("Content-Encoding"), rec.Header().Get("Content-Length"))
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("%s: the gunzipped body (%v) is not the document", enc, err)
		}
	}
	for _, h := range []map[string]string{
		{"Accept-Encoding": "gzip;q=0"},
		{"Accept-Encoding": "gzip", "If-None-Match": plain.Header().Get("Etag")},
	} {
		if rec := get(t, v, PathV2, h); rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("%v: Content-Encoding %q, want none", h, rec.Header().Get("Content-Encoding"))
		}
	}
}

// TestV2FollowsSet adds, through Set, the v3 document of a CRD
// group-version (built as the API server builds it) and removes it: the v2
// document and its ETag follow, and the CRD schema, with nullable, anyOf
// and int-or-string in it, still converts to protobuf.
func TestV2FollowsSet(t *testing.T) {
	h := MustNew(t, testResources())
	v := NewV2(h)
	_, before := v2Raw(t, v)
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	crdDoc, err := apiextensions.OpenAPIDocument([]*apiextensionsv1.CustomResourceDefinition{widgetCRD()}, "v1")
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Set(gv, crdDoc); err != nil {
		t.Fatal(err)
	}
	doc, added := v2Raw(t, v)
	if added.Header().Get("Etag") == before.Header().Get("Etag") {
		t.Errorf("ETag did not change when a document was added")
	}
	widget := at(doc, "definitions", "com.example.v1.Widget")
	if got := fmt.Sprint(at(widget, extGVK)); got != "[map[group:example.com kind:Widget version:v1]]" {
		t.Errorf("Widget %s = %s", extGVK, got)
	}
	if at(doc, "paths", "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}") == nil {
		t.Errorf("no path for widgets")
	}
	if at(doc, "definitions", "io.k8s.api.apps.v1.Deployment") == nil {
		t.Errorf("the built-in definitions went missing")
	}
	if rec := get(t, v, PathV2, map[string]string{"Accept": mediaTypeV2Protobuf}); rec.Code != 200 {
		t.Errorf("protobuf with the CRD: status %d: %s", rec.Code, rec.Body)
	}
	if err := h.Set(gv, nil); err != nil {
		t.Fatal(err)
	}
	if _, after := v2Raw(t, v); after.Body.String() != before.Body.String() {
		t.Errorf("after the removal the document is not the one before the CRD")
	}
}

func widgetCRD() *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size":  {XIntOrString: true, AnyOf: []apiextensionsv1.JSONSchemaProps{{Type: "integer"}, {Type: "string"}}},
							"color": {Type: "string", Nullable: true, Description: "The widget's colour."},
							"tags":  {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &str}},
						}},
					},
				}},
			}},
		},
	}
}

func TestV2ConcurrentWithSet(t *testing.T) {
	h := MustNew(t, testResources())
	v := NewV2(h)
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%8 == 0 {
				if err := h.Set(gv, docTitled(strconv.Itoa(i))); err != nil {
					errs <- err.Error()
				}
				return
			}
			accept := "application/json"
			if i%2 == 1 {
				accept = mediaTypeV2Protobuf
			}
			if rec := get(t, v, PathV2, map[string]string{"Accept": accept}); rec.Code != 200 || rec.Body.Len() == 0 {
				errs <- fmt.Sprintf("%s: status %d", accept, rec.Code)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestV2IsStable(t *testing.T) {
	_, a := v2Raw(t, NewV2(MustNew(t, testResources())))
	_, b := v2Raw(t, NewV2(MustNew(t, testResources())))
	if a.Header().Get("Etag") != b.Header().Get("Etag") {
		t.Errorf("two builds of the same resources give different v2 documents")
	}
}

// TestV2ClientGo reads the document the way client-go's discovery does
// (protobuf) and looks a model up as kubectl's v2 code paths do.
func TestV2ClientGo(t *testing.T) {
	srv := httptest.NewServer(NewV2(MustNew(t, testResources())))
	defer srv.Close()
	dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dc.OpenAPISchema()
	if err != nil {
		t.Fatalf("OpenAPISchema: %v", err)
	}
	if doc.GetSwagger() != "2.0" {
		t.Errorf("swagger = %q", doc.GetSwagger())
	}
	models, err := kproto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("NewOpenAPIData: %v", err)
	}
	kind, ok := models.LookupModel("io.k8s.api.apps.v1.Deployment").(*kproto.Kind)
	if !ok {
		t.Fatalf("Deployment is not a kind model")
	}
	var fields []string
	for name := range kind.Fields {
		fields = append(fields, name)
	}
	sort.Strings(fields)
	if got := fmt.Sprint(fields); got != "[apiVersion kind metadata spec status]" {
		t.Errorf("Deployment fields = %s", got)
	}
}

// v2FakeAPIServer is fakeAPIServer with the v2 handler mounted beside v3.
// It records the Accept header of every v2 request.
type v2FakeAPIServer struct {
	*fakeAPIServer
	v2 *V2Handler

	mu      sync.Mutex
	accepts []string
}

func (s *v2FakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != PathV2 {
		s.fakeAPIServer.ServeHTTP(w, r)
		return
	}
	s.mu.Lock()
	s.accepts = append(s.accepts, r.Header.Get("Accept"))
	s.mu.Unlock()
	s.v2.ServeHTTP(w, r)
}

func TestKubectlExplainOpenAPIV2(t *testing.T) {
	rs := testResources()
	f := &fakeAPIServer{resources: rs, openapi: MustNew(t, rs), pods: map[string][]byte{}}
	fake := &v2FakeAPIServer{fakeAPIServer: f, v2: NewV2(f.openapi)}
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	out, errOut, err := kubectl(t, srv, t.TempDir(), "explain", "deployment.spec.replicas", "--output=plaintext-openapiv2")
	if err != nil {
		t.Fatalf("kubectl explain: %v\nstderr: %s\nstdout: %s", err, errOut, out)
	}
	desc := appsv1.DeploymentSpec{}.SwaggerDoc()["replicas"]
	for _, want := range []string{"KIND:     Deployment", "VERSION:  apps/v1", "FIELD:    replicas <integer>", strings.Join(strings.Fields(desc)[:6], " ")} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	fake.mu.Lock()
	defer fake.mu.Unlock()
	if len(fake.accepts) == 0 || !strings.Contains(fake.accepts[0], mediaTypeV2ProtobufOldName) {
		t.Errorf("kubectl's requests for %s accepted %q, want the protobuf form", PathV2, fake.accepts)
	}
}
