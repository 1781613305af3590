package registry_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestServiceAccountCache: an account created in storage appears in the
// cache (fed by the watch cache), a deleted one goes away, an unknown one
// is NotFound.
func TestServiceAccountCache(t *testing.T) {
	r := newRegistry(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go r.RunWatchCaches(ctx)
	if err := r.WaitForWatchCaches(ctx); err != nil {
		t.Fatal(err)
	}
	c := registry.NewServiceAccountCache(r.ServiceAccounts)
	go c.Run(ctx)

	if _, err := c.Get("default", "builder"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get of an unknown account: err = %v, want NotFound", err)
	}
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "builder"}}
	out, err := r.ServiceAccounts.Create(ctx, "default", sa, nil, registry.Options{})
	if err != nil {
		t.Fatal(err)
	}
	uid := out.(*corev1.ServiceAccount).UID
	waitFor(t, "the account in the cache", func() bool {
		got, err := c.Get("default", "builder")
		return err == nil && got.UID == uid
	})
	if _, _, err := r.ServiceAccounts.Delete(ctx, "default", "builder", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the account gone from the cache", func() bool {
		_, err := c.Get("default", "builder")
		return apierrors.IsNotFound(err)
	})
}

// waitTimeout is the deadline of the package's waits for a state:
// generous, so that only a hang reaches it, never a slow machine.
const waitTimeout = waitfor.Bound

// waitFor polls cond until it holds, failing after waitTimeout.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
