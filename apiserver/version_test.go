package apiserver_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/version"
)

// TestVersionAsUpstream checks /version against kube-apiserver v1.37.2's
// (its gitVersion aside: kubesim's says +kubesim on purpose): the
// emulation version is the binary's, the minimum compatibility one the
// minor before.
func TestVersionAsUpstream(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, "GET", "/version", "", "")
	var v version.Info
	if err := json.Unmarshal([]byte(body), &v); code != 200 || err != nil {
		t.Fatalf("GET /version: %d %v %s", code, err, body)
	}
	want := version.Info{Major: "1", Minor: "37", EmulationMajor: "1", EmulationMinor: "37", MinCompatibilityMajor: "1", MinCompatibilityMinor: "36", GitVersion: "v1.37.2+kubesim"}
	got := version.Info{Major: v.Major, Minor: v.Minor, EmulationMajor: v.EmulationMajor, EmulationMinor: v.EmulationMinor,
		MinCompatibilityMajor: v.MinCompatibilityMajor, MinCompatibilityMinor: v.MinCompatibilityMinor, GitVersion: v.GitVersion}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}
