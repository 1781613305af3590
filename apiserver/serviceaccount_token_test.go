package apiserver_test

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver"
)

// whoami returns who the server says token is, or the error.
func whoami(ts *testServer, token string) (authenticationv1.UserInfo, error) {
	c := kubernetes.NewForConfigOrDie(ts.restConfigAs(token))
	r, err := c.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return r.Status.UserInfo, nil
}

func requestToken(ts *testServer, ns, name string, spec authenticationv1.TokenRequestSpec) (*authenticationv1.TokenRequest, error) {
	return ts.client.CoreV1().ServiceAccounts(ns).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: spec}, metav1.CreateOptions{})
}

// TestTokenRequest checks kubectl create token's request and that the
// token authenticates as the service account.
func TestTokenRequest(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	if _, err := requestToken(ts, "default", "default", authenticationv1.TokenRequestSpec{}); !apierrors.IsNotFound(err) ||
		!strings.Contains(err.Error(), `serviceaccounts "default" not found`) {
		t.Fatalf("token of a missing service account: %v, want NotFound", err)
	}
	sa, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := requestToken(ts, "default", "default", authenticationv1.TokenRequestSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if got := ptr.Deref(tr.Spec.ExpirationSeconds, 0); got != 3600 {
		t.Errorf("expirationSeconds = %d, want 3600", got)
	}
	if got := tr.Spec.Audiences; len(got) != 1 || got[0] != apiserver.DefaultServiceAccountIssuer {
		t.Errorf("audiences = %v, want [%s]", got, apiserver.DefaultServiceAccountIssuer)
	}
	if d := tr.Status.ExpirationTimestamp.Sub(tr.CreationTimestamp.Time).Seconds(); d < 3599 || d > 3601 {
		t.Errorf("token valid for %.0f s, want 3600", d)
	}
	u, err := whoami(ts, tr.Status.Token)
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := "system:serviceaccounts system:serviceaccounts:default system:authenticated"
	if u.Username != "system:serviceaccount:default:default" || u.UID != string(sa.UID) || strings.Join(u.Groups, " ") != wantGroups {
		t.Errorf("user %q uid %q groups %v, want system:serviceaccount:default:default %s [%s]", u.Username, u.UID, u.Groups, sa.UID, wantGroups)
	}
	if id := u.Extra["authentication.kubernetes.io/credential-id"]; len(id) != 1 || !strings.HasPrefix(id[0], "JTI=") {
		t.Errorf("credential id %v, want JTI=<jti>", id)
	}

	t.Run("another audience is not accepted", func(t *testing.T) {
		other, err := requestToken(ts, "default", "default", authenticationv1.TokenRequestSpec{Audiences: []string{"vault"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := whoami(ts, other.Status.Token); !apierrors.IsUnauthorized(err) {
			t.Errorf("token for audience vault: %v, want 401", err)
		}
	})
	t.Run("too short", func(t *testing.T) {
		_, err := requestToken(ts, "default", "default", authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](300)})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes") {
			t.Errorf("300 s: %v, want upstream's Invalid", err)
		}
	})
	t.Run("a deleted service account's token is refused, also once recreated", func(t *testing.T) {
		if err := ts.client.CoreV1().ServiceAccounts("default").Delete(ctx, "default", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, waitTimeout, "token refused", func() bool { _, err := whoami(ts, tr.Status.Token); return apierrors.IsUnauthorized(err) })
		if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := whoami(ts, tr.Status.Token); !apierrors.IsUnauthorized(err) {
			t.Errorf("old token after the service account was recreated: %v, want 401", err)
		}
	})
}

// TestTokenBoundToPod checks a token bound to a pod: the pod in the user's
// extra, and the token refused once the pod is gone.
func TestTokenBoundToPod(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	if _, err := ts.client.CoreV1().ServiceAccounts("default").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := testPod("web", nil)
	p.Spec.ServiceAccountName = "builder"
	pod := mustCreatePod(t, ts.client, "default", p)
	other := mustCreatePod(t, ts.client, "default", testPod("other", nil))
	ref := func(name string) authenticationv1.TokenRequestSpec {
		return authenticationv1.TokenRequestSpec{BoundObjectRef: &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: name}}
	}
	if _, err := requestToken(ts, "default", "builder", ref(other.Name)); !apierrors.IsBadRequest(err) {
		t.Errorf("binding to a pod of another service account: %v, want 400", err)
	}
	tr, err := requestToken(ts, "default", "builder", ref(pod.Name))
	if err != nil {
		t.Fatal(err)
	}
	u, err := whoami(ts, tr.Status.Token)
	if err != nil {
		t.Fatal(err)
	}
	if got := u.Extra["authentication.kubernetes.io/pod-uid"]; len(got) != 1 || got[0] != string(pod.UID) {
		t.Errorf("pod-uid %v, want %s", got, pod.UID)
	}
	if err := ts.client.CoreV1().Pods("default").Delete(ctx, pod.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "token refused", func() bool { _, err := whoami(ts, tr.Status.Token); return apierrors.IsUnauthorized(err) })
}
