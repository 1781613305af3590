package cluster_test

import (
	"context"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestServiceAccountTokenOutlivesRestart: a token kubectl create token
// made is still accepted by the next cluster on the same data dir, whose
// API server signs and checks tokens with the key kept there.
func TestServiceAccountTokenOutlivesRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	first := mustStartCluster(t, dir)
	k := newKubectl(t, first)
	k.must(t, "create", "serviceaccount", "builder")
	token := strings.TrimSpace(k.must(t, "create", "token", "builder"))
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	second := mustStartCluster(t, dir)
	// Only the token: no client certificate, which would be authenticated
	// first.
	cfg := &rest.Config{Host: second.URL, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: second.Authority.CACertPEM()}}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := cs.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("whoami with the token made before the restart: %v", err)
	}
	if got, want := review.Status.UserInfo.Username, "system:serviceaccount:default:builder"; got != want {
		t.Fatalf("whoami with the token made before the restart: got %q, want %q", got, want)
	}
}
