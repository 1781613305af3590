package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

type fakeGetter struct{ sa *corev1.ServiceAccount }

func (f fakeGetter) GetServiceAccount(_ context.Context, namespace, name string) (*corev1.ServiceAccount, error) {
	if f.sa == nil || f.sa.Namespace != namespace || f.sa.Name != name {
		return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
	}
	return f.sa, nil
}

func (fakeGetter) GetPod(_ context.Context, _, name string) (*corev1.Pod, error) {
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

func mustKey(tb testing.TB) *ecdsa.PrivateKey {
	tb.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func bearer(token string) *http.Request {
	r, _ := http.NewRequest("GET", "/api", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}

func TestServiceAccountAuthenticator(t *testing.T) {
	const iss = "https://kubernetes.default.svc.cluster.local"
	key := mustKey(t)
	issuer, err := NewTokenIssuer(key, iss)
	if err != nil {
		t.Fatal(err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "builder", UID: types.UID("uid-1")}}
	now := time.Unix(1_800_000_000, 0)
	authn := NewServiceAccountAuthenticator(iss, []string{iss}, &key.PublicKey, fakeGetter{sa}).(*serviceAccountAuthenticator)
	authn.now = func() time.Time { return now }
	req := TokenRequest{Namespace: "team-a", Name: "builder", UID: "uid-1", Audiences: []string{iss}, Expiration: time.Hour}
	token := func(mutate func(*TokenRequest), at time.Time) string {
		r := req
		if mutate != nil {
			mutate(&r)
		}
		tok, _, err := issuer.Issue(r, at)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	otherIssuer, _ := NewTokenIssuer(mustKey(t), "https://elsewhere")
	foreign, _, _ := otherIssuer.Issue(req, now)
	forged, _ := NewTokenIssuer(mustKey(t), iss)
	forgedToken, _, _ := forged.Issue(req, now)
	good := token(nil, now)
	parts := strings.Split(good, ".")
	tests := []struct {
		name, token string
		ok          bool
		errSub      string
	}{
		{name: "valid", token: good, ok: true},
		{name: "not a JWT is not its business", token: "static-token-abc"},
		{name: "another issuer is not its business", token: foreign},
		{name: "signed by another key", token: forgedToken, errSub: "error in cryptographic primitive"},
		{name: "alg none", token: b64([]byte(`{"alg":"none"}`)) + "." + parts[1] + ".", errSub: "error in cryptographic primitive"},
		{name: "expired", token: token(nil, now.Add(-2*time.Hour)), errSub: "service account token has expired"},
		{name: "within the leeway", token: token(nil, now.Add(-time.Hour-30*time.Second)), ok: true},
		{name: "issued later", token: token(nil, now.Add(5*time.Minute)), errSub: "service account token is not valid yet"},
		{name: "other audience", token: token(func(r *TokenRequest) { r.Audiences = []string{"vault"} }, now), errSub: "token audiences"},
		{name: "recreated service account", token: token(func(r *TokenRequest) { r.UID = "uid-0" }, now), errSub: "service account UID (uid-1) does not match claim (uid-0)"},
		{name: "missing service account", token: token(func(r *TokenRequest) { r.Name = "gone" }, now), errSub: `serviceaccounts "gone" not found`},
		{name: "missing pod", token: token(func(r *TokenRequest) { r.Pod = &ObjectRef{Name: "web", UID: "p"} }, now), errSub: "service account token has been invalidated"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, ok, err := authn.AuthenticateRequest(bearer(tt.token))
			if ok != tt.ok {
				t.Fatalf("ok = %v (err %v), want %v", ok, err, tt.ok)
			}
			if tt.errSub == "" && err != nil || tt.errSub != "" && (err == nil || !strings.Contains(err.Error(), tt.errSub)) {
				t.Fatalf("err = %v, want %q", err, tt.errSub)
			}
			if ok {
				u := res.User
				if u.Name != "system:serviceaccount:team-a:builder" || u.UID != "uid-1" ||
					strings.Join(u.Groups, " ") != "system:serviceaccounts system:serviceaccounts:team-a system:authenticated" {
					t.Errorf("user %+v", u)
				}
			}
		})
	}
}
