package aggregator

import (
	"net/http"
	"net/http/httptest"
	"testing"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
)

// TestHandlerRouting: a request goes by the APIService of its path, as
// upstream's proxy handlers: local ones and unclaimed paths to the
// delegate, a remote one that is not Available to 503, each hop noted.
func TestHandlerRouting(t *testing.T) {
	var hops []string
	delegate := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := NewHandler(delegate, ProxyConfig{
		Resolver: NewStaticResolver(),
		UserFrom: func(*http.Request) (User, bool) { return User{Name: "admin"}, true },
		Hop:      func(_ *http.Request, outcome, text string) { hops = append(hops, outcome+": "+text) },
	})
	local := apiService("", "v1", 18000, 1)
	local.Name = "v1."
	helper.SetAPIServiceCondition(local, helper.NewLocalAvailableAPIServiceCondition())
	remote := apiService("metrics.k8s.io", "v1beta1", 100, 100)
	remote.Spec.Service = &apiregv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server"}
	h.AddAPIService(local)
	h.AddAPIService(remote)
	tests := []struct {
		path string
		code int
		hop  string
		body string
	}{
		{"/api/v1/pods", http.StatusTeapot, "delegated: APIService v1. is Local: delegated to kube-apiserver", ""},
		{"/apis/example.com/v1/widgets", http.StatusTeapot, "delegated: no APIService claims /apis/example.com/v1/widgets: delegated to kube-apiserver", ""},
		{"/apis/metrics.k8s.io/v1beta1/nodes", http.StatusServiceUnavailable,
			"unavailable: APIService v1beta1.metrics.k8s.io is not Available: 503 service unavailable", "service unavailable\n"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			hops = nil
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, tt.path, nil))
			if rec.Code != tt.code || (tt.body != "" && rec.Body.String() != tt.body) {
				t.Errorf("GET %s: %d %q, want %d %q", tt.path, rec.Code, rec.Body.String(), tt.code, tt.body)
			}
			if len(hops) != 1 || hops[0] != tt.hop {
				t.Errorf("hops = %q, want [%q]", hops, tt.hop)
			}
		})
	}
	h.RemoveAPIService("v1beta1.metrics.k8s.io")
	if got := len(h.APIServices()); got != 1 {
		t.Errorf("after RemoveAPIService: %d APIServices, want 1", got)
	}
}
