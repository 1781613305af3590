package aggregator

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

func TestValidateAPIService(t *testing.T) {
	port := func(p int32) *int32 { return &p }
	remote := func(mod func(*apiregv1.APIService)) *apiregv1.APIService {
		a := &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1beta1.metrics.k8s.io"}, Spec: apiregv1.APIServiceSpec{
			Group: "metrics.k8s.io", Version: "v1beta1", GroupPriorityMinimum: 100, VersionPriority: 100,
			Service: &apiregv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server", Port: port(443)},
		}}
		if mod != nil {
			mod(a)
		}
		return a
	}
	tests := []struct {
		name string
		in   *apiregv1.APIService
		want []string // "field: message part", in order
	}{
		{"valid remote", remote(nil), nil},
		{"valid local core", &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1."},
			Spec: apiregv1.APIServiceSpec{Version: "v1", GroupPriorityMinimum: 18000, VersionPriority: 1}}, nil},
		{"name must match", remote(func(a *apiregv1.APIService) { a.Name = "v1.metrics.k8s.io" }),
			[]string{"metadata.name: Invalid value: \"v1.metrics.k8s.io\": must be `spec.version+\".\"+spec.group`: \"v1beta1.metrics.k8s.io\""}},
		{"empty group needs v1", remote(func(a *apiregv1.APIService) { a.Name, a.Spec.Group = "v1beta1.", "" }),
			[]string{"spec.group: Required value: only v1 may have an empty group"}},
		{"bad version", remote(func(a *apiregv1.APIService) { a.Name, a.Spec.Version = "V1.metrics.k8s.io", "V1" }),
			[]string{"spec.version: Invalid value: \"V1\""}},
		{"priorities", remote(func(a *apiregv1.APIService) { a.Spec.GroupPriorityMinimum, a.Spec.VersionPriority = 0, 1001 }),
			[]string{"spec.groupPriorityMinimum: Invalid value: 0: must be positive and less than 20000",
				"spec.versionPriority: Invalid value: 1001: must be positive and less than 1000"}},
		{"local with caBundle", &apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com"},
			Spec: apiregv1.APIServiceSpec{Group: "example.com", Version: "v1", GroupPriorityMinimum: 1, VersionPriority: 1, CABundle: []byte("xx")}},
			[]string{"spec.caBundle: Invalid value: \"2 bytes\": local APIServices may not have a caBundle"}},
		{"service fields", remote(func(a *apiregv1.APIService) {
			a.Spec.Service = &apiregv1.ServiceReference{Port: port(0)}
			a.Spec.InsecureSkipTLSVerify, a.Spec.CABundle = true, []byte("x")
		}), []string{"spec.service.namespace: Required value", "spec.service.name: Required value",
			"spec.service.port: Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive",
			"spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			errs := ValidateAPIService(tt.in)
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors %v, want %d: %q", len(errs), errs, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if got := errs[i].Error(); !strings.HasPrefix(got, w) {
					t.Errorf("error %d = %q, want it to start with %q", i, got, w)
				}
			}
		})
	}
}

func TestValidateAPIServiceStatus(t *testing.T) {
	a := &apiregv1.APIService{Status: apiregv1.APIServiceStatus{Conditions: []apiregv1.APIServiceCondition{
		{Type: apiregv1.Available, Status: apiregv1.ConditionTrue}, {Type: apiregv1.Available, Status: "Maybe"},
	}}}
	errs := ValidateAPIServiceStatus(a)
	if len(errs) != 1 || !strings.HasPrefix(errs[0].Error(), `status.conditions[1].status: Unsupported value: "Maybe"`) {
		t.Fatalf("got %v, want one Unsupported value for conditions[1]", errs)
	}
}

func TestDefault(t *testing.T) {
	a := &apiregv1.APIService{Spec: apiregv1.APIServiceSpec{Service: &apiregv1.ServiceReference{Namespace: "kube-system", Name: "m"}}}
	if got := Default(a); len(got) != 1 || got[0] != "spec.service.port=443" || *a.Spec.Service.Port != 443 {
		t.Fatalf("Default = %v, port %v; want spec.service.port=443", got, a.Spec.Service.Port)
	}
	if got := Default(&apiregv1.APIService{}); got != nil {
		t.Fatalf("Default of a local APIService = %v, want nothing", got)
	}
}
