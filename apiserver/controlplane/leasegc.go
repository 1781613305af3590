package controlplane

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// APIServerLeaseGC is the garbage collector of expired identity Leases,
// as upstream's apiserverleasegc controller, which kube-apiserver's
// start-kube-apiserver-identity-lease-garbage-collector hook starts: at
// once, then every GCPeriod, it deletes the Leases in kube-system
// labelled apiserver.kubernetes.io/identity=kube-apiserver whose
// renewTime plus leaseDurationSeconds has passed (or that lack either),
// after reading each again. Every API server runs one; a Lease another
// one deleted first is no error. Upstream lists from an informer of
// those Leases; kubesim lists the registry (its watch cache) when it
// runs. Run is called once, by the collector's owner.
type APIServerLeaseGC struct {
	reg    *registry.Registry
	period time.Duration
	logf   func(format string, args ...any)
	now    func() time.Time
}

// NewAPIServerLeaseGC returns the collector that deletes through reg
// every cfg.GCPeriod (zero: upstream's hour) and reports failures to
// logf.
func NewAPIServerLeaseGC(reg *registry.Registry, cfg IdentityLeaseConfig, logf func(format string, args ...any)) *APIServerLeaseGC {
	return &APIServerLeaseGC{reg: reg, period: cfg.withDefaults().GCPeriod, logf: logf, now: time.Now}
}

// Run collects at once, then every period, until ctx is done.
func (c *APIServerLeaseGC) Run(ctx context.Context) {
	for {
		c.gc(ctx)
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.period):
		}
	}
}

// gc is one pass of the garbage collector.
func (c *APIServerLeaseGC) gc(ctx context.Context) {
	sel := labels.SelectorFromSet(labels.Set{IdentityLeaseComponentLabelKey: identityLeaseComponent})
	obj, err := c.reg.Leases.List(ctx, metav1.NamespaceSystem, &metainternalversion.ListOptions{LabelSelector: sel})
	if err != nil {
		if ctx.Err() == nil {
			c.logf("apiserver lease garbage collector: list: %v", err)
		}
		return
	}
	for _, l := range obj.(*coordinationv1.LeaseList).Items {
		if !identityLeaseExpired(&l, c.now()) {
			continue
		}
		cur, err := c.reg.Leases.Get(ctx, metav1.NamespaceSystem, l.Name, nil)
		if apierrors.IsNotFound(err) {
			continue // another API server's collector was first
		}
		if err != nil {
			c.logf("apiserver lease garbage collector: get %s: %v", l.Name, err)
			continue
		}
		if !identityLeaseExpired(cur.(*coordinationv1.Lease), c.now()) {
			continue
		}
		if _, _, err := c.reg.Leases.Delete(ctx, metav1.NamespaceSystem, l.Name, nil, nil); err != nil && !apierrors.IsNotFound(err) {
			c.logf("apiserver lease garbage collector: delete %s: %v", l.Name, err)
		}
	}
}

// identityLeaseExpired is upstream's isLeaseExpired: no renew time, no
// duration, or renewed longer ago than its duration.
func identityLeaseExpired(l *coordinationv1.Lease, now time.Time) bool {
	return l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil ||
		l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second).Before(now)
}
