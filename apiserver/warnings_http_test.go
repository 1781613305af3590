package apiserver_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestStrategyWarningsOverHTTP creates pods named with a dot: kube-apiserver
// answers 201 with the pod strategy's WarningsOnCreate
// (pkg/registry/core/pod/strategy.go), which rest.BeforeCreate adds to the
// recorder of WithWarningRecorder, as a Warning header.
func TestStrategyWarningsOverHTTP(t *testing.T) {
	ts := startServer(t)
	nameWarning := `299 - "metadata.name: this is used in the Pod's hostname, which can result in surprising behavior; a DNS label is recommended: [must not contain dots]"`

	t.Run("name with a dot", func(t *testing.T) {
		code, got := postPodWarnings(t, ts, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a.b"},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}`)
		if want := []string{nameWarning}; code != http.StatusCreated || !slices.Equal(got, want) {
			t.Errorf("code %d, Warning headers\n%q\nwant 201 and\n%q", code, got, want)
		}
	})

	// The decoder's unknown-field warning comes first, recorded at decode
	// time as upstream's create handler records it
	// (addStrictDecodingWarnings), then the strategy's; each once.
	t.Run("and an unknown field", func(t *testing.T) {
		code, got := postPodWarnings(t, ts, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"c.d"},"spec":{"colour":"blue","containers":[{"name":"app","image":"nginx:1.27"}]}}`)
		want := []string{`299 - "unknown field \"spec.colour\""`, nameWarning}
		if code != http.StatusCreated || !slices.Equal(got, want) {
			t.Errorf("code %d, Warning headers\n%q\nwant 201 and\n%q", code, got, want)
		}
	})

	// A create that fails validation still carries the decoder's warning
	// (recorded before validation), and not the strategy's (added only
	// once validation has passed, as rest.BeforeCreate adds it).
	t.Run("invalid, with an unknown field", func(t *testing.T) {
		code, got := postPodWarnings(t, ts, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"e.f"},"spec":{"colour":"blue","containers":[]}}`)
		want := []string{`299 - "unknown field \"spec.colour\""`}
		if code != http.StatusUnprocessableEntity || !slices.Equal(got, want) {
			t.Errorf("code %d, Warning headers\n%q\nwant 422 and\n%q", code, got, want)
		}
	})
}

// postPodWarnings creates the pod in body as the admin and returns the
// answer's code and Warning headers.
func postPodWarnings(t *testing.T, ts *testServer, body string) (int, []string) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.url+"/api/v1/namespaces/default/pods", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Values("Warning")
}

// TestDeprecatedKindWarns checks that every request to v1 Endpoints carries
// the deprecation warning upstream's installer adds to each route of a
// deprecated kind, first, whatever the answer (kube-apiserver v1.37.2
// sends it on each of these); a kind not deprecated gets none.
func TestDeprecatedKindWarns(t *testing.T) {
	ts := startServer(t)
	deprecated := `299 - "v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice"`
	tests := []struct {
		name, method, path, body string
		code                     int
		want                     []string
	}{
		{"create, with an unknown field", "POST", "/api/v1/namespaces/default/endpoints", `{"apiVersion":"v1","kind":"Endpoints","metadata":{"name":"ep1"},"colour":1}`,
			http.StatusCreated, []string{deprecated, `299 - "unknown field \"colour\""`}},
		{"get", "GET", "/api/v1/namespaces/default/endpoints/ep1", "", http.StatusOK, []string{deprecated}},
		{"get missing", "GET", "/api/v1/namespaces/default/endpoints/nope", "", http.StatusNotFound, []string{deprecated}},
		{"list all namespaces", "GET", "/api/v1/endpoints", "", http.StatusOK, []string{deprecated}},
		{"legacy watch", "GET", "/api/v1/watch/namespaces/default/endpoints?timeoutSeconds=1", "", http.StatusOK, []string{deprecated}},
		{"invalid patch", "PATCH", "/api/v1/namespaces/default/endpoints/ep1", `{"subsets":[{"addresses":[{"ip":"not-an-ip"}],"ports":[{"port":80}]}]}`,
			http.StatusUnprocessableEntity, []string{deprecated}},
		{"deletecollection", "DELETE", "/api/v1/namespaces/default/endpoints", "", http.StatusOK, []string{deprecated}},
		{"not deprecated", "GET", "/api/v1/namespaces/default/configmaps", "", http.StatusOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, ts.url+tt.path, strings.NewReader(tt.body))
			req.Header.Set("Authorization", "Bearer "+adminToken)
			if tt.method == "PATCH" {
				req.Header.Set("Content-Type", "application/merge-patch+json")
			} else if tt.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := resp.Header.Values("Warning"); resp.StatusCode != tt.code || !slices.Equal(got, tt.want) {
				t.Errorf("code %d, Warning headers %q; want %d and %q", resp.StatusCode, got, tt.code, tt.want)
			}
		})
	}
}
