package controlplane

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestAPIServerLeaseGC: one pass deletes the identity Leases renewed
// longer ago than their duration, and those without a renew time or a
// duration; it keeps a live one, one renewed exactly a duration ago, and
// an expired Lease without the identity label (a leader election lease).
func TestAPIServerLeaseGC(t *testing.T) {
	reg, err := registry.New(registry.StoreConfig{Client: etcdtest.Start(t).Client()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	now := time.Now().Truncate(time.Microsecond) // as a MicroTime is stored
	at := func(d time.Duration) *metav1.MicroTime { m := metav1.NewMicroTime(now.Add(-d)); return &m }
	seconds := int32(3600)
	identity := map[string]string{IdentityLeaseComponentLabelKey: identityLeaseComponent}
	leases := []struct {
		name    string
		labels  map[string]string
		spec    coordinationv1.LeaseSpec
		deleted bool
	}{
		{"apiserver-expired", identity, coordinationv1.LeaseSpec{RenewTime: at(2 * time.Hour), LeaseDurationSeconds: &seconds}, true},
		{"apiserver-never-renewed", identity, coordinationv1.LeaseSpec{LeaseDurationSeconds: &seconds}, true},
		{"apiserver-no-duration", identity, coordinationv1.LeaseSpec{RenewTime: at(0)}, true},
		{"apiserver-live", identity, coordinationv1.LeaseSpec{RenewTime: at(time.Minute), LeaseDurationSeconds: &seconds}, false},
		{"apiserver-on-the-edge", identity, coordinationv1.LeaseSpec{RenewTime: at(time.Hour), LeaseDurationSeconds: &seconds}, false},
		{"kube-scheduler", nil, coordinationv1.LeaseSpec{RenewTime: at(2 * time.Hour), LeaseDurationSeconds: &seconds}, false},
	}
	for _, l := range leases {
		obj := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: l.name, Namespace: metav1.NamespaceSystem, Labels: l.labels}, Spec: l.spec}
		if _, err := reg.Leases.Create(ctx, metav1.NamespaceSystem, obj, nil, registry.Options{}); err != nil {
			t.Fatalf("create %s: %v", l.name, err)
		}
	}
	var logged []string
	gc := NewAPIServerLeaseGC(reg, IdentityLeaseConfig{}, func(format string, args ...any) { logged = append(logged, format) })
	gc.now = func() time.Time { return now }
	gc.gc(ctx)
	for _, l := range leases {
		_, err := reg.Leases.Get(ctx, metav1.NamespaceSystem, l.name, nil)
		if deleted := apierrors.IsNotFound(err); deleted != l.deleted || (err != nil && !deleted) {
			t.Errorf("lease %s: get after a pass: %v, want deleted %v", l.name, err, l.deleted)
		}
	}
	if len(logged) != 0 {
		t.Errorf("the pass logged %q, want nothing", logged)
	}
}
