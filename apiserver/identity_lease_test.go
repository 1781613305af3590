package apiserver_test

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/controlplane"
)

// identityLeaseOf waits for the identity Lease of ts and returns it.
func identityLeaseOf(t *testing.T, ts *testServer) *coordinationv1.Lease {
	t.Helper()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(ts.url)
	if err != nil {
		t.Fatal(err)
	}
	name := controlplane.IdentityLeaseName(host, u.Host)
	var l *coordinationv1.Lease
	waitFor(t, waitTimeout, "identity lease "+name, func() bool {
		l, err = ts.client.CoordinationV1().Leases("kube-system").Get(context.Background(), name, metav1.GetOptions{})
		return err == nil
	})
	return l
}

// TestIdentityLease: each API server keeps a Lease in kube-system named
// after its machine and address, labelled as upstream's, held by
// "<name>_<uuid>" for 3600 s; two servers on one machine get two.
func TestIdentityLease(t *testing.T) {
	ts := startServer(t)
	l := identityLeaseOf(t, ts)
	host, _ := os.Hostname()
	if got := l.Labels[controlplane.IdentityLeaseComponentLabelKey]; got != "kube-apiserver" {
		t.Errorf("label %s = %q, want kube-apiserver", controlplane.IdentityLeaseComponentLabelKey, got)
	}
	if got := l.Labels[corev1.LabelHostname]; got != host {
		t.Errorf("label %s = %q, want %q", corev1.LabelHostname, got, host)
	}
	if h := l.Spec.HolderIdentity; h == nil || !strings.HasPrefix(*h, l.Name+"_") || len(*h) <= len(l.Name)+1 {
		t.Errorf("holderIdentity %v, want %s_<uuid>", h, l.Name)
	}
	if d := l.Spec.LeaseDurationSeconds; d == nil || *d != 3600 {
		t.Errorf("leaseDurationSeconds %v, want 3600", d)
	}
	if l.Spec.RenewTime == nil {
		t.Error("no renewTime")
	}
	other := startServerOn(t, ts)
	if l2 := identityLeaseOf(t, other); l2.Name == l.Name {
		t.Errorf("both servers hold Lease %s", l.Name)
	}
}

// TestIdentityLeaseRenewed: the Lease's renewTime moves on every renew
// interval.
func TestIdentityLeaseRenewed(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) { c.IdentityLease.RenewInterval = 100 * time.Millisecond })
	first := identityLeaseOf(t, ts)
	waitFor(t, waitTimeout, "a renewed identity lease", func() bool {
		l, err := ts.client.CoordinationV1().Leases("kube-system").Get(context.Background(), first.Name, metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(first.Spec.RenewTime.Time)
	})
}

// TestIdentityLeaseGarbageCollector: a server's collector deletes the
// expired identity Leases (and those without a renew time) when it
// starts, and leaves a live one and an expired Lease without the
// identity label (a leader election lease) alone.
func TestIdentityLeaseGarbageCollector(t *testing.T) {
	ts := startServer(t)
	ctx := context.Background()
	leases := ts.client.CoordinationV1().Leases("kube-system")
	old := metav1.NewMicroTime(time.Now().Add(-2 * time.Hour))
	seconds := int32(3600)
	identity := map[string]string{controlplane.IdentityLeaseComponentLabelKey: "kube-apiserver"}
	for _, l := range []*coordinationv1.Lease{
		{ObjectMeta: metav1.ObjectMeta{Name: "apiserver-expired", Labels: identity}, Spec: coordinationv1.LeaseSpec{RenewTime: &old, LeaseDurationSeconds: &seconds}},
		{ObjectMeta: metav1.ObjectMeta{Name: "apiserver-never-renewed", Labels: identity}},
		{ObjectMeta: metav1.ObjectMeta{Name: "kube-scheduler"}, Spec: coordinationv1.LeaseSpec{RenewTime: &old, LeaseDurationSeconds: &seconds}},
	} {
		if _, err := leases.Create(ctx, l, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	live := identityLeaseOf(t, ts)
	startServerOn(t, ts) // its collector runs at once
	for _, name := range []string{"apiserver-expired", "apiserver-never-renewed"} {
		waitFor(t, waitTimeout, name+" collected", func() bool {
			_, err := leases.Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err)
		})
	}
	for _, name := range []string{live.Name, "kube-scheduler"} {
		if _, err := leases.Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("lease %s: %v, want it kept", name, err)
		}
	}
}
