package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestIndex(t *testing.T) {
	h := MustNew(t, testResources())
	rec := get(t, h, "/openapi/v3", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("status = %d, want 200", rec.Code)
	}
	// kube-apiserver v1.37.2's aggregator serves the index without a
	// Content-Type of its own (sniffed from the bytes) and without an ETag.
	if got := rec.Header().Get("Content-Type"); got != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q, want text/plain; charset=utf-8", got)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		t.Fatalf("index is not JSON: %v", err)
	}
	var keys []string
	for k := range index.Paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	want := []string{"api/v1", "apis/apps/v1", "apis/coordination.k8s.io/v1", "apis/rbac.authorization.k8s.io/v1"}
	if fmt.Sprint(keys) != fmt.Sprint(want) {
		t.Fatalf("index paths = %v, want %v", keys, want)
	}
	for _, k := range keys {
		t.Run(k, func(t *testing.T) {
			doc := get(t, h, Path+"/"+k, nil)
			wantURL := fmt.Sprintf("/openapi/v3/%s?hash=%X", k, sha512.Sum512(doc.Body.Bytes()))
			if got := index.Paths[k].ServerRelativeURL; got != wantURL {
				t.Errorf("serverRelativeURL = %q, want %q (hash of the served bytes)", got, wantURL)
			}
		})
	}

	if etag := rec.Header().Get("Etag"); etag != "" {
		t.Errorf("index Etag = %s, want none", etag)
	}
}

func TestDocumentResponses(t *testing.T) {
	h := MustNew(t, testResources())
	current := h.docs["api/v1"]
	currentURL := "/openapi/v3/api/v1?hash=" + current.etag
	const pb = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
	const pbNew = "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"

	tests := []struct {
		name        string
		target      string
		header      map[string]string
		wantCode    int
		wantHeaders map[string]string // "" means must be absent
		wantBody    string            // checked when set
	}{
		{
			name: "no hash", target: "/openapi/v3/api/v1", wantCode: 200,
			wantHeaders: map[string]string{"Content-Type": "application/json", "Etag": strconv.Quote(current.etag), "Vary": "Accept", "Cache-Control": ""},
		},
		{
			name: "current hash is cached for good", target: currentURL, wantCode: 200,
			wantHeaders: map[string]string{"Content-Type": "application/json", "Etag": strconv.Quote(current.etag), "Cache-Control": "public, immutable"},
		},
		{
			name: "stale hash is redirected", target: "/openapi/v3/api/v1?hash=0123ABCD", wantCode: http.StatusMovedPermanently,
			wantHeaders: map[string]string{"Location": currentURL, "Cache-Control": ""},
		},
		{
			name: "If-None-Match with the current ETag", target: currentURL,
			header: map[string]string{"If-None-Match": strconv.Quote(current.etag)}, wantCode: http.StatusNotModified,
		},
		{
			name: "If-None-Match with an old ETag", target: currentURL,
			header: map[string]string{"If-None-Match": `"OLD"`}, wantCode: 200,
		},
		{
			name: "only protobuf accepted", target: currentURL, header: map[string]string{"Accept": pb}, wantCode: http.StatusNotAcceptable,
		},
		{
			name: "only the newer protobuf name accepted", target: currentURL, header: map[string]string{"Accept": pbNew}, wantCode: http.StatusNotAcceptable,
		},
		{
			name: "protobuf preferred, JSON allowed", target: currentURL,
			header: map[string]string{"Accept": pb + ", application/json;q=0.5"}, wantCode: 200,
			wantHeaders: map[string]string{"Content-Type": "application/json"},
		},
		{
			name: "application/* accepted", target: currentURL, header: map[string]string{"Accept": "application/*"}, wantCode: 200,
		},
		{
			name: "yaml only", target: currentURL, header: map[string]string{"Accept": "application/yaml"}, wantCode: http.StatusNotAcceptable,
		},
		{
			// Upstream's aggregator answers an empty 404, without a type.
			name: "unknown group-version", target: "/openapi/v3/apis/example.com/v1", wantCode: http.StatusNotFound,
			wantHeaders: map[string]string{"Content-Type": ""}, wantBody: "",
		},
		{name: "version not served", target: "/openapi/v3/api/v2", wantCode: http.StatusNotFound},
		{name: "trailing slash", target: "/openapi/v3/", wantCode: http.StatusNotFound},
		{name: "longer path", target: "/openapi/v3/api/v1/pods", wantCode: http.StatusNotFound},
		{name: "other prefix", target: "/openapi/v3x", wantCode: http.StatusNotFound},
		// /openapi/v2 is V2Handler's, mounted beside this one (v2_test.go).
		{name: "v2 is not this handler's", target: "/openapi/v2", wantCode: http.StatusNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(t, h, tt.target, tt.header)
			if rec.Code != tt.wantCode {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantCode)
			}
			for k, want := range tt.wantHeaders {
				if got := rec.Header().Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if (tt.wantBody != "" || rec.Code == http.StatusNotFound) && rec.Body.String() != tt.wantBody {
				t.Errorf("body = %s, want %s", rec.Body, tt.wantBody)
			}
			if rec.Code == 200 && rec.Body.String() != string(current.body) {
				t.Errorf("body is not the api/v1 document")
			}
		})
	}
}

func TestDocumentExpiresAYearAhead(t *testing.T) {
	h := MustNew(t, testResources())
	rec := get(t, h, "/openapi/v3/api/v1?hash="+h.docs["api/v1"].etag, nil)
	exp, err := http.ParseTime(rec.Header().Get("Expires"))
	if err != nil {
		t.Fatalf("Expires %q: %v", rec.Header().Get("Expires"), err)
	}
	if lm, err := http.ParseTime(rec.Header().Get("Last-Modified")); err != nil || exp.Sub(lm).Hours() < 364*24 {
		t.Errorf("Expires = %v, Last-Modified = %v (%v); want about a year later", exp, lm, err)
	}
}

func TestRedirectTargetIsServed(t *testing.T) {
	h := MustNew(t, testResources())
	for key := range h.docs {
		rec := get(t, h, "/openapi/v3/"+key+"?hash=stale", nil)
		loc, err := url.Parse(rec.Header().Get("Location"))
		if rec.Code != http.StatusMovedPermanently || err != nil {
			t.Fatalf("%s: status %d, Location %q", key, rec.Code, rec.Header().Get("Location"))
		}
		if got := get(t, h, loc.String(), nil); got.Code != 200 || got.Header().Get("Cache-Control") != "public, immutable" {
			t.Errorf("%s: following the redirect: status %d, Cache-Control %q", key, got.Code, got.Header().Get("Cache-Control"))
		}
	}
}

func TestDocumentsAreStable(t *testing.T) {
	a, b := MustNew(t, testResources()), MustNew(t, testResources())
	if a.index.etag != b.index.etag {
		t.Errorf("two builds of the same resources give different index hashes")
	}
	for k := range a.docs {
		if a.docs[k].etag != b.docs[k].etag {
			t.Errorf("%s: two builds give different hashes", k)
		}
	}
}

func TestInfo(t *testing.T) {
	h := MustNew(t, testResources())
	doc := MustDocument(t, h, schema.GroupVersion{Version: "v1"})
	if doc.Version != "3.0.0" {
		t.Errorf("openapi = %q, want 3.0.0", doc.Version)
	}
	if doc.Info == nil || doc.Info.Title != "Kubernetes" {
		t.Fatalf("info = %+v, want title Kubernetes", doc.Info)
	}
	// Test binaries carry no module list, so "unversioned" is allowed here;
	// a built binary reports the release of k8s.io/api.
	if v := doc.Info.Version; v != "unversioned" && !regexp.MustCompile(`^v1\.\d+\.\d+$`).MatchString(v) {
		t.Errorf("info.version = %q, want v1.N.M or unversioned", v)
	}
}

func TestConcurrentRequests(t *testing.T) {
	h := MustNew(t, testResources())
	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			target := "/openapi/v3"
			if i%2 == 1 {
				target = "/openapi/v3/apis/coordination.k8s.io/v1"
			}
			if rec := get(t, h, target, nil); rec.Code != 200 || rec.Body.Len() == 0 {
				errs <- fmt.Sprintf("%s: status %d", target, rec.Code)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestNewRejects(t *testing.T) {
	valid := func() Resource { return testResources()[4] } // leases
	tests := []struct {
		name    string
		mutate  func(*Resource)
		wantErr string
	}{
		{"unknown verb", func(r *Resource) { r.Verbs = append(r.Verbs, "proxy") }, `unknown verb "proxy"`},
		{"no object", func(r *Resource) { r.Object = nil }, "no Object"},
		{"no kind", func(r *Resource) { r.Kind.Kind = "" }, "needs a version and a kind"},
		{"no plural", func(r *Resource) { r.Plural = "" }, "bad Plural"},
		{"list without List", func(r *Resource) { r.List = nil }, "needs a List object"},
		{"subresource list", func(r *Resource) {
			r.Subresources = []Subresource{{Name: "status", Kind: r.Kind, Object: r.Object, Verbs: []string{"list"}}}
		}, `verb "list" is not supported on a subresource`},
		{"subresource without object", func(r *Resource) {
			r.Subresources = []Subresource{{Name: "status", Kind: r.Kind, Verbs: []string{"get"}}}
		}, "no Object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := valid()
			tt.mutate(&r)
			_, err := New([]Resource{r})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
	t.Run("duplicate", func(t *testing.T) {
		if _, err := New([]Resource{valid(), valid()}); err == nil || !strings.Contains(err.Error(), "listed twice") {
			t.Errorf("New error = %v, want 'listed twice'", err)
		}
	})
	t.Run("valid", func(t *testing.T) {
		if _, err := New([]Resource{valid()}); err != nil {
			t.Errorf("New: %v", err)
		}
	})
}
