package scenarios

import (
	"slices"
	"testing"
)

func TestBodyFacts(t *testing.T) {
	tests := []struct {
		body string
		want []string
	}{
		{`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"nodes is forbidden: User \"student\" cannot list resource \"nodes\"","reason":"Forbidden","code":403}`,
			[]string{"code 403, reason Forbidden", `message: nodes is forbidden: User "student" cannot list resource "nodes"`}},
		{`{"kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"verb":"create"}},"status":{"allowed":false}}`,
			[]string{`status: {"allowed":false}`}},
		{`{"kind":"Pod","status":{"phase":"Running"}}`, nil},
		{`not json`, nil},
	}
	for _, tt := range tests {
		if got := bodyFacts([]byte(tt.body)); !slices.Equal(got, tt.want) {
			t.Errorf("bodyFacts(%s) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestPodProgress(t *testing.T) {
	phase, restarts, ok := podProgress([]byte(`{"kind":"Pod","status":{"phase":"Running","containerStatuses":[{"restartCount":2},{"restartCount":1}]}}`))
	if !ok || phase != "Running" || restarts != 3 {
		t.Errorf("podProgress = %q, %d, %v; want Running, 3", phase, restarts, ok)
	}
	if _, _, ok := podProgress([]byte(`{"kind":"PodList"}`)); ok {
		t.Error("a PodList read as a Pod")
	}
}
