package apiserver_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestImpersonationWithoutUser: a uid, groups or extras without
// Impersonate-User are 400, with kube-apiserver v1.37.2's message (asked
// of it with curl, constrained impersonation on as by default).
func TestImpersonationWithoutUser(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	for _, tc := range []struct {
		name    string
		headers []string
		want    string
	}{
		{"uid", []string{"Impersonate-Uid", "abc"},
			`requested &user.DefaultInfo{Name:"", UID:"abc", Groups:[]string(nil), Extra:map[string][]string(nil)} without impersonating a user name`},
		{"extra", []string{"Impersonate-Extra-Scopes", "view"},
			`requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string(nil), Extra:map[string][]string{"scopes":[]string{"view"}}} without impersonating a user name`},
		{"group", []string{"Impersonate-Group", "g1"},
			`requested &user.DefaultInfo{Name:"", UID:"", Groups:[]string{"g1"}, Extra:map[string][]string(nil)} without impersonating a user name`},
		{"all", []string{"Impersonate-Group", "g1", "Impersonate-Uid", "u1", "Impersonate-Extra-Foo%2Fbar", "v1", "Impersonate-Extra-Scopes", "s"},
			`requested &user.DefaultInfo{Name:"", UID:"u1", Groups:[]string{"g1"}, Extra:map[string][]string{"foo/bar":[]string{"v1"}, "scopes":[]string{"s"}}} without impersonating a user name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := ts.do(t, "GET", "/api/v1/namespaces", "", "", tc.headers...)
			var st metav1.Status
			if err := json.Unmarshal([]byte(body), &st); err != nil {
				t.Fatalf("%d %s: %v", code, body, err)
			}
			if code != http.StatusBadRequest || st.Reason != metav1.StatusReasonBadRequest || st.Message != tc.want {
				t.Errorf("%d %s %q\nwant 400 BadRequest %q", code, st.Reason, st.Message, tc.want)
			}
		})
	}
}

// TestImpersonationUIDAndExtras: a caller allowed to impersonate uids and
// an extra key acts with them (SelfSubjectReview shows the user as
// kube-apiserver showed it); an extra key it may not impersonate is 403
// with upstream's message.
func TestImpersonationUIDAndExtras(t *testing.T) {
	t.Parallel()
	ts := startServer(t)
	mustRBAC(t, ts.client, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "imp-all"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"users", "groups"}, Verbs: []string{"impersonate"}},
		{APIGroups: []string{"authentication.k8s.io"}, Resources: []string{"uids", "userextras/scopes"}, Verbs: []string{"impersonate"}},
	}})
	mustRBAC(t, ts.client, clusterBinding("student-imp-all", "imp-all", "student"))
	student := kubernetes.NewForConfigOrDie(ts.restConfigAs(studentToken))
	waitCanI(t, student, "impersonate", "authentication.k8s.io", "uids", "", "u1")

	as := []string{"Authorization", "Bearer " + studentToken, "Impersonate-User", "alice", "Impersonate-Uid", "u1",
		"Impersonate-Extra-Scopes", "s1", "Impersonate-Group", "g1"}
	code, body := ts.do(t, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
		`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`, as...)
	var review authenticationv1.SelfSubjectReview
	if err := json.Unmarshal([]byte(body), &review); err != nil || code != http.StatusCreated {
		t.Fatalf("%d %s (%v)", code, body, err)
	}
	want := authenticationv1.UserInfo{Username: "alice", UID: "u1", Groups: []string{"g1", "system:authenticated"},
		Extra: map[string]authenticationv1.ExtraValue{"scopes": {"s1"}}}
	if got := review.Status.UserInfo; !reflect.DeepEqual(got, want) {
		t.Errorf("userInfo %+v, want %+v", got, want)
	}

	code, body = ts.do(t, "GET", "/api/v1/namespaces/default/pods", "", "",
		"Authorization", "Bearer "+studentToken, "Impersonate-User", "alice", "Impersonate-Extra-Other", "s1")
	var st metav1.Status
	_ = json.Unmarshal([]byte(body), &st)
	if wantMsg := `userextras.authentication.k8s.io "s1" is forbidden: User "student" cannot impersonate resource "userextras/other" in API group "authentication.k8s.io" at the cluster scope`; code != http.StatusForbidden || st.Message != wantMsg {
		t.Errorf("%d %q, want 403 %q", code, st.Message, wantMsg)
	}
}
