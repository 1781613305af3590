package apiserver_test

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
)

const tokenReviewPath = "/apis/authentication.k8s.io/v1/tokenreviews"

// postTokenReview posts a TokenReview of token for auds and returns the
// code, the status, and an error's message.
func postTokenReview(t *testing.T, ts *testServer, token string, auds ...string) (int, authenticationv1.TokenReviewStatus, string) {
	t.Helper()
	body, err := json.Marshal(&authenticationv1.TokenReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "authentication.k8s.io/v1", Kind: "TokenReview"},
		Spec:     authenticationv1.TokenReviewSpec{Token: token, Audiences: auds},
	})
	if err != nil {
		t.Fatal(err)
	}
	code, out := ts.do(t, http.MethodPost, tokenReviewPath, "application/json", string(body))
	var doc struct {
		Status  json.RawMessage `json:"status"`
		Message string          `json:"message"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("answer %s: %v", out, err)
	}
	var status authenticationv1.TokenReviewStatus
	if code == http.StatusCreated {
		if err := json.Unmarshal(doc.Status, &status); err != nil {
			t.Fatalf("status %s: %v", doc.Status, err)
		}
	}
	return code, status, doc.Message
}

// TestTokenReview checks upstream's answers (as kube-apiserver v1.37.2
// gave them) to tokenreviews: the user a token stands for and the
// audiences it is good for, or upstream's error for a token the server
// does not accept.
func TestTokenReview(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	token := func(auds ...string) string {
		tr, err := requestToken(ts, "default", "robot", authenticationv1.TokenRequestSpec{Audiences: auds})
		if err != nil {
			t.Fatal(err)
		}
		return tr.Status.Token
	}
	robot, forFoo, forBoth := token(), token("foo"), token("foo", apiserver.DefaultServiceAccountIssuer)
	admin := authenticationv1.UserInfo{Username: "admin", Groups: []string{"system:masters", "system:authenticated"}}
	anonymous := authenticationv1.UserInfo{Username: "system:anonymous", Groups: []string{"system:unauthenticated"}}
	api := []string{apiserver.DefaultServiceAccountIssuer}
	tests := []struct {
		name, token string
		auds        []string
		want        authenticationv1.TokenReviewStatus
	}{
		{name: "static token", token: adminToken, want: authenticationv1.TokenReviewStatus{Authenticated: true, User: admin, Audiences: api}},
		{name: "static token for another audience", token: adminToken, auds: []string{"foo"}, want: authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}},
		{name: "unknown token", token: "abc", want: authenticationv1.TokenReviewStatus{Error: "invalid bearer token"}},
		{name: "blanks are no bearer token: anonymous", token: " x", auds: []string{"z"},
			want: authenticationv1.TokenReviewStatus{Authenticated: true, User: anonymous, Audiences: []string{"z"}}},
		{name: "service account token for another audience", token: robot, auds: []string{"foo"},
			want: authenticationv1.TokenReviewStatus{Error: `[invalid bearer token, token audiences ["` + api[0] + `"] is invalid for the target audiences ["foo"]]`}},
		{name: "service account token not for the API", token: forFoo,
			want: authenticationv1.TokenReviewStatus{Error: `[invalid bearer token, token audiences ["foo"] is invalid for the target audiences ["` + api[0] + `"]]`}},
		{name: "forged signature", token: robot + "x",
			want: authenticationv1.TokenReviewStatus{Error: "[invalid bearer token, go-jose/go-jose: error in cryptographic primitive]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, got, msg := postTokenReview(t, ts, tt.token, tt.auds...)
			if code != http.StatusCreated || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %d %+v %s\nwant 201 %+v", code, got, msg, tt.want)
			}
		})
	}
	t.Run("audiences in the order asked", func(t *testing.T) {
		_, got, _ := postTokenReview(t, ts, forBoth, "bar", api[0], "foo")
		if want := []string{api[0], "foo"}; !got.Authenticated || !reflect.DeepEqual(got.Audiences, want) {
			t.Errorf("got %+v, want authenticated for %v", got, want)
		}
	})
	t.Run("no token", func(t *testing.T) {
		code, _, msg := postTokenReview(t, ts, "")
		if code != http.StatusBadRequest || msg != "token is required for TokenReview in authentication" {
			t.Errorf("got %d %q, want upstream's 400", code, msg)
		}
	})
}

// TestTokenReviewConformance does what upstream's conformance tests
// "should create a serviceAccountToken and ensure a successful
// TokenReview" and "should mount projected service account token" check
// of a TokenReview, through client-go: a token of a service account, and
// one bound to a pod, are authenticated without error as the service
// account, with its groups, the token's credential id and the pod.
func TestTokenReviewConformance(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "e2e-sa"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := testPod("web", nil)
	p.Spec.ServiceAccountName = "e2e-sa"
	pod := mustCreatePod(t, ts.client, "default", p)
	for _, ref := range []*authenticationv1.BoundObjectReference{nil, {Kind: "Pod", APIVersion: "v1", Name: pod.Name}} {
		tr, err := requestToken(ts, "default", "e2e-sa", authenticationv1.TokenRequestSpec{BoundObjectRef: ref})
		if err != nil {
			t.Fatal(err)
		}
		review, err := ts.client.AuthenticationV1().TokenReviews().Create(ctx,
			&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		u := review.Status.User
		if !review.Status.Authenticated || review.Status.Error != "" || u.Username != "system:serviceaccount:default:e2e-sa" {
			t.Fatalf("review %+v, want authenticated as system:serviceaccount:default:e2e-sa", review.Status)
		}
		wantGroups := []string{"system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"}
		if id := u.Extra["authentication.kubernetes.io/credential-id"]; !reflect.DeepEqual(u.Groups, wantGroups) || len(id) != 1 || len(id[0]) < 5 || id[0][:4] != "JTI=" {
			t.Errorf("groups %v, credential id %v; want %v and JTI=<jti>", u.Groups, id, wantGroups)
		}
		if ref == nil {
			continue
		}
		if name, uid := u.Extra["authentication.kubernetes.io/pod-name"], u.Extra["authentication.kubernetes.io/pod-uid"]; !reflect.DeepEqual(name, authenticationv1.ExtraValue{pod.Name}) ||
			!reflect.DeepEqual(uid, authenticationv1.ExtraValue{string(pod.UID)}) {
			t.Errorf("pod-name %v pod-uid %v, want [%s] [%s]", name, uid, pod.Name, pod.UID)
		}
	}
}
