package openapi

import (
	"net/http"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kube-openapi/pkg/spec3"
)

// TestNewInBackground: a handler building in the background serves the
// index and documents New serves, byte for byte (the first requests wait
// for the build); one whose build fails (a list verb without a List
// object) answers 500 with the build's error, and Set refuses.
func TestNewInBackground(t *testing.T) {
	want := MustNew(t, testResources())
	h, err := NewInBackground(testResources())
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{Path, Path + "/api/v1", Path + "/apis/apps/v1"} {
		got, exp := get(t, h, path, nil), get(t, want, path, nil)
		if got.Code != http.StatusOK || got.Body.String() != exp.Body.String() {
			t.Errorf("%s: status %d, %d bytes; want 200 and New's %d bytes", path, got.Code, got.Body.Len(), exp.Body.Len())
		}
	}

	broken := testResources()[4] // leases
	broken.List = nil
	h, err = NewInBackground([]Resource{broken})
	if err != nil {
		t.Fatalf("NewInBackground checks only what needs no build: %v", err)
	}
	if rec := get(t, h, Path, nil); rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "needs a List object") {
		t.Errorf("index of a failed build: %d %q, want 500 with the build's error", rec.Code, rec.Body.String())
	}
	if err := h.Set(schema.GroupVersion{Group: "example.com", Version: "v1"}, &spec3.OpenAPI{}); err == nil || !strings.Contains(err.Error(), "needs a List object") {
		t.Errorf("Set after a failed build: %v, want the build's error", err)
	}
}
