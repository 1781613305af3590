package cluster

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
)

// staleLeaseTimeout bounds the release of a stale Lease.
const staleLeaseTimeout = 10 * time.Second

// releaseStaleLeaseLocked gives up the Lease kube-system/lease when the
// first instance of kind k this cluster starts finds it held: with the
// embedded etcd, whose data dir this process has locked, the holder can
// only be an instance of an earlier kubesim process, which is gone (it
// crashed, or it was a controller manager, which keeps its Lease when
// stopped). The Lease is written as client-go's release writes it (no
// holder, a duration of 1 s), so the new instance takes it at once.
//
// kubesim differs from upstream here: a kube-scheduler or
// kube-controller-manager restarted after a crash waits LeaseDuration
// (15 s) for its predecessor's Lease, since it cannot know that the
// holder is dead; kubesim, restarted on the same data dir, knows, and
// does not make every start after a crash 15 s slower. With an external
// etcd (another process may run instances on it) nothing is released.
// Called with c.compMu held; a failure is logged and otherwise ignored
// (the instance then waits as upstream's would).
func (c *Cluster) releaseStaleLeaseLocked(k instanceKind, lease string) {
	if c.elected.checked[k] || c.etcd == nil {
		return
	}
	if c.elected.checked == nil {
		c.elected.checked = map[instanceKind]bool{}
	}
	c.elected.checked[k] = true
	ctx, cancel := context.WithTimeout(c.runCtx, staleLeaseTimeout)
	defer cancel()
	holder, err := c.releaseLease(ctx, lease)
	logger := klog.FromContext(ctx)
	switch {
	case err != nil:
		logger.Error(err, "Releasing a stale Lease failed", "lease", metav1.NamespaceSystem+"/"+lease)
	case holder != "":
		logger.Info("Released the Lease of an earlier kubesim process", "lease", metav1.NamespaceSystem+"/"+lease, "holder", holder)
	}
}

// releaseLease clears the holder of the Lease kube-system/name, if it has
// one, and returns who held it ("" if nobody, or no Lease).
func (c *Cluster) releaseLease(ctx context.Context, name string) (string, error) {
	admin, err := c.AdminClient()
	if err != nil {
		return "", err
	}
	leases := admin.CoordinationV1().Leases(metav1.NamespaceSystem)
	l, err := leases.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		return "", fmt.Errorf("cluster: lease %s: %w", name, err)
	}
	holder := ptr.Deref(l.Spec.HolderIdentity, "")
	if holder == "" {
		return "", nil
	}
	now := metav1.NewMicroTime(time.Now())
	l.Spec.HolderIdentity, l.Spec.LeaseDurationSeconds = ptr.To(""), ptr.To[int32](1)
	l.Spec.AcquireTime, l.Spec.RenewTime = &now, &now
	if _, err := leases.Update(ctx, l, metav1.UpdateOptions{}); err != nil {
		return holder, fmt.Errorf("cluster: lease %s: %w", name, err)
	}
	return holder, nil
}
