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
