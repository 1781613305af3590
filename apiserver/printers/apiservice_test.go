package printers_test

import (
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/kubesim/kubesim/apiserver/printers"
)

func TestAPIServiceCells(t *testing.T) {
	cond := func(s apiregv1.ConditionStatus, reason string) []apiregv1.APIServiceCondition {
		return []apiregv1.APIServiceCondition{{Type: apiregv1.Available, Status: s, Reason: reason}}
	}
	remote := &apiregv1.ServiceReference{Namespace: "kube-system", Name: "metrics-server"}
	tests := []struct {
		name string
		in   apiregv1.APIService
		want []any
	}{
		{"local", apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.", CreationTimestamp: ago(2 * day)},
			Status: apiregv1.APIServiceStatus{Conditions: cond(apiregv1.ConditionTrue, "Local")}},
			[]any{"v1.", "Local", "True", "2d"}},
		{"remote failing", apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1beta1.metrics.k8s.io", CreationTimestamp: ago(5 * time.Minute)},
			Spec:   apiregv1.APIServiceSpec{Service: remote},
			Status: apiregv1.APIServiceStatus{Conditions: cond(apiregv1.ConditionFalse, "FailedDiscoveryCheck")}},
			[]any{"v1beta1.metrics.k8s.io", "kube-system/metrics-server", "False (FailedDiscoveryCheck)", "5m"}},
		{"no condition", apiregv1.APIService{ObjectMeta: metav1.ObjectMeta{Name: "v1.example.com", CreationTimestamp: ago(time.Second)}},
			[]any{"v1.example.com", "Local", "Unknown", "1s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			table := MustTable(t, &apiregv1.APIServiceList{Items: []apiregv1.APIService{tt.in}}, printers.Options{})
			var cols []string
			for _, c := range table.ColumnDefinitions {
				cols = append(cols, c.Name)
			}
			if want := []string{"Name", "Service", "Available", "Age"}; !reflect.DeepEqual(cols, want) {
				t.Fatalf("columns = %v, want %v", cols, want)
			}
			if got := table.Rows[0].Cells; !reflect.DeepEqual(got, tt.want) {
				t.Errorf("cells = %v, want %v", got, tt.want)
			}
		})
	}
}
