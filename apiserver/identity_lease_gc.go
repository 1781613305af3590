package apiserver

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

// identityLeaseGCHook starts the garbage collector of expired identity
// Leases and returns, as upstream's hook does
// (pkg/controlplane/controller/apiserverleasegc): at once, then every
// GCPeriod, it deletes the Leases in kube-system labelled
// apiserver.kubernetes.io/identity=kube-apiserver whose renewTime plus
// leaseDurationSeconds has passed (or that lack either), after reading
// each again. Every API server runs one; a Lease another one deleted
// first is no error. Upstream lists from an informer of those Leases;
// kubesim lists the registry (its watch cache) when it runs.
func (s *Server) identityLeaseGCHook(ctx PostStartHookContext) error {
	period := s.cfg.IdentityLease.withDefaults().GCPeriod
	logf := s.cfg.errorLog().Printf
	ctx.Go(func(ctx context.Context) {
		for {
			collectIdentityLeases(ctx, s.reg, time.Now, logf)
			select {
			case <-ctx.Done():
				return
			case <-time.After(period):
			}
		}
	})
	return nil
}

// collectIdentityLeases is one pass of the garbage collector.
func collectIdentityLeases(ctx context.Context, reg *registry.Registry, now func() time.Time, logf func(string, ...any)) {
	sel := labels.SelectorFromSet(labels.Set{IdentityLeaseComponentLabelKey: identityLeaseComponent})
	obj, err := reg.Leases.List(ctx, metav1.NamespaceSystem, &metainternalversion.ListOptions{LabelSelector: sel})
	if err != nil {
		if ctx.Err() == nil {
			logf("apiserver lease garbage collector: list: %v", err)
		}
		return
	}
	for _, l := range obj.(*coordinationv1.LeaseList).Items {
		if !identityLeaseExpired(&l, now()) {
			continue
		}
		cur, err := reg.Leases.Get(ctx, metav1.NamespaceSystem, l.Name, nil)
		if apierrors.IsNotFound(err) {
			continue // another API server's collector was first
		}
		if err != nil {
			logf("apiserver lease garbage collector: get %s: %v", l.Name, err)
			continue
		}
		if !identityLeaseExpired(cur.(*coordinationv1.Lease), now()) {
			continue
		}
		if _, _, err := reg.Leases.Delete(ctx, metav1.NamespaceSystem, l.Name, nil, nil); err != nil && !apierrors.IsNotFound(err) {
			logf("apiserver lease garbage collector: delete %s: %v", l.Name, err)
		}
	}
}

// identityLeaseExpired is upstream's isLeaseExpired: no renew time, no
// duration, or renewed longer ago than its duration.
func identityLeaseExpired(l *coordinationv1.Lease, now time.Time) bool {
	return l.Spec.RenewTime == nil || l.Spec.LeaseDurationSeconds == nil ||
		l.Spec.RenewTime.Add(time.Duration(*l.Spec.LeaseDurationSeconds)*time.Second).Before(now)
}
