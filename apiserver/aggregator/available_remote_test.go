package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// TestRemoteCheck: the remote availability check's conditions, with
// upstream's reasons and messages.
func TestRemoteCheck(t *testing.T) {
	var gotUser, gotGroup string
	backend := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotUser, gotGroup = r.Header.Get("X-Remote-User"), r.Header.Get("X-Remote-Group")
		if r.URL.Path == "/apis/metrics.k8s.io/v1beta1" {
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer backend.Close()
	resolver := NewStaticResolver()
	c := &RemoteAvailabilityController{cfg: RemoteAvailabilityConfig{Resolver: resolver}}
	remote := func(version string, mod func(*apiregv1.APIService)) *apiregv1.APIService {
		a := apiService("metrics.k8s.io", version, 100, 100)
		a.Spec.Service = &apiregv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server"}
		a.Spec.InsecureSkipTLSVerify = true
		if mod != nil {
			mod(a)
		}
		return a
	}
	addr := strings.TrimPrefix(backend.URL, "https://")
	tests := []struct {
		name    string
		in      *apiregv1.APIService
		resolve bool
		status  apiregv1.ConditionStatus
		reason  string
		message string // prefix
	}{
		{"no service", remote("v1beta1", nil), false, apiregv1.ConditionFalse, "ServiceNotFound", `service/metrics-server in "kube-system" is not present`},
		{"passed", remote("v1beta1", nil), true, apiregv1.ConditionTrue, "Passed", "all checks passed"},
		{"bad status", remote("v1", nil), true, apiregv1.ConditionFalse, "FailedDiscoveryCheck", "bad status from https://" + addr + "/apis/metrics.k8s.io/v1: 500"},
		{"certificate not verified", remote("v1beta1", func(a *apiregv1.APIService) { a.Spec.InsecureSkipTLSVerify = false }), true,
			apiregv1.ConditionFalse, "FailedDiscoveryCheck", "failing or missing response from https://" + addr + "/apis/metrics.k8s.io/v1beta1: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resolver.Delete("kube-system", "metrics-server")
			if tt.resolve {
				resolver.Set("kube-system", "metrics-server", addr)
			}
			cond, err := c.check(context.Background(), tt.in)
			if cond.Status != tt.status || cond.Reason != tt.reason || !strings.HasPrefix(cond.Message, tt.message) {
				t.Errorf("condition = %s %s %q, want %s %s %q...", cond.Status, cond.Reason, cond.Message, tt.status, tt.reason, tt.message)
			}
			if failed := tt.reason == "FailedDiscoveryCheck"; failed != (err != nil) {
				t.Errorf("error = %v; a failed discovery check returns its error (for the retry), nothing else does", err)
			}
		})
	}
	if gotUser != "system:kube-aggregator" || gotGroup != "system:masters" {
		t.Errorf("the check came as %q in %q, want system:kube-aggregator in system:masters", gotUser, gotGroup)
	}
}
