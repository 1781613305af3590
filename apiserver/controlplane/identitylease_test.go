package controlplane

import (
	"context"
	"regexp"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestIdentityLeaseName: the name is "apiserver-" and 26 lower-case
// base32 characters, the same for the same machine and address, and
// different when either differs.
func TestIdentityLeaseName(t *testing.T) {
	name := IdentityLeaseName("host-a", "127.0.0.1:6443")
	if !regexp.MustCompile(`^apiserver-[a-z2-7]{26}$`).MatchString(name) {
		t.Errorf("name %q, want apiserver- and 26 lower-case base32 characters", name)
	}
	if again := IdentityLeaseName("host-a", "127.0.0.1:6443"); again != name {
		t.Errorf("name %q then %q for the same server", name, again)
	}
	for _, other := range [][2]string{{"host-b", "127.0.0.1:6443"}, {"host-a", "127.0.0.2:6443"}} {
		if got := IdentityLeaseName(other[0], other[1]); got == name {
			t.Errorf("%s on %s is named %q too", other[1], other[0], got)
		}
	}
}

// TestIdentityLeaseControllerKeepsHolder: a server that finds its Lease
// (a restart) renews it with the holder it has, its duration and
// renewTime set and its labels asserted, as upstream's controller.
func TestIdentityLeaseControllerKeepsHolder(t *testing.T) {
	reg, err := registry.New(registry.StoreConfig{Client: etcdtest.Start(t).Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	c, err := NewIdentityLeaseController(reg, "127.0.0.1:6443", IdentityLeaseConfig{Duration: 90 * time.Second}, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	holder := c.name + "_before-the-restart"
	old := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: metav1.NamespaceSystem},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	if _, err := reg.Leases.Create(ctx, metav1.NamespaceSystem, old, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx); err != nil {
		t.Fatalf("sync: %v", err)
	}
	obj, err := reg.Leases.Get(ctx, metav1.NamespaceSystem, c.name, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := obj.(*coordinationv1.Lease)
	if h := l.Spec.HolderIdentity; h == nil || *h != holder {
		t.Errorf("holder %v, want %s kept", h, holder)
	}
	if d := l.Spec.LeaseDurationSeconds; d == nil || *d != 90 {
		t.Errorf("leaseDurationSeconds %v, want 90", d)
	}
	if l.Spec.RenewTime == nil {
		t.Error("no renewTime")
	}
	if l.Labels[IdentityLeaseComponentLabelKey] != "kube-apiserver" || l.Labels[corev1.LabelHostname] != c.host {
		t.Errorf("labels %v, want the identity and hostname labels", l.Labels)
	}
}

// TestIdentityLeaseConfigValidate: the zero value and whole periods pass;
// a negative period, or a duration below a second, is refused.
func TestIdentityLeaseConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  IdentityLeaseConfig
		ok   bool
	}{
		{"zero", IdentityLeaseConfig{}, true},
		{"short", IdentityLeaseConfig{Duration: time.Second, RenewInterval: 100 * time.Millisecond, GCPeriod: time.Millisecond}, true},
		{"negative renew interval", IdentityLeaseConfig{RenewInterval: -time.Second}, false},
		{"negative gc period", IdentityLeaseConfig{GCPeriod: -time.Second}, false},
		{"duration below a second", IdentityLeaseConfig{Duration: 500 * time.Millisecond}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.cfg.Validate(); (err == nil) != tc.ok {
				t.Errorf("Validate() = %v, want ok %v", err, tc.ok)
			}
		})
	}
}
