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
