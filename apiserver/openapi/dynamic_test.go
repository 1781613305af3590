package openapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// indexURLs reads the index: document key → serverRelativeURL.
func indexURLs(tb testing.TB, h http.Handler) (map[string]string, string) {
	tb.Helper()
	rec := get(tb, h, Path, nil)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &index); err != nil {
		tb.Fatalf("index: %v", err)
	}
	out := map[string]string{}
	for k, v := range index.Paths {
		out[k] = v.ServerRelativeURL
	}
	// The index has no ETag (as upstream's); its hash stands for one.
	return out, etagOf(rec.Body.Bytes())
}

func docTitled(title string) *spec3.OpenAPI {
	return &spec3.OpenAPI{Version: "3.0.0", Info: &spec.Info{InfoProps: spec.InfoProps{Title: title}}}
}

func TestSetChangesDocuments(t *testing.T) {
	h := MustNew(t, testResources())
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	const key = "apis/example.com/v1"
	before, etag0 := indexURLs(t, h)
	if _, ok := before[key]; ok {
		t.Fatalf("index lists %s before Set", key)
	}
	steps := []struct {
		name       string
		doc        *spec3.OpenAPI
		wantListed bool
		wantTitle  string
	}{
		{"added", docTitled("one"), true, "one"},
		{"replaced", docTitled("two"), true, "two"},
		{"removed", nil, false, ""},
	}
	lastURL, lastEtag := "", etag0
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if err := h.Set(gv, s.doc); err != nil {
				t.Fatal(err)
			}
			urls, etag := indexURLs(t, h)
			if etag == lastEtag {
				t.Errorf("index (hash %s) did not change", etag)
			}
			lastEtag = etag
			url, listed := urls[key]
			if listed != s.wantListed {
				t.Fatalf("listed = %v, want %v (%v)", listed, s.wantListed, urls)
			}
			rec := get(t, h, Path+"/"+key, nil)
			if !listed {
				if rec.Code != http.StatusNotFound {
					t.Errorf("removed document: status %d, want 404", rec.Code)
				}
				return
			}
			if url == lastURL {
				t.Errorf("document URL %s did not change with the document", url)
			}
			lastURL = url
			var doc spec3.OpenAPI
			if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil || doc.Info.Title != s.wantTitle {
				t.Errorf("document = %s (%v), want title %s", rec.Body.String(), err, s.wantTitle)
			}
		})
	}
	if after, _ := indexURLs(t, h); len(after) != len(before) {
		t.Errorf("index has %d documents after the removal, want the %d it began with", len(after), len(before))
	}
}
