package apiserver

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// The identity lease hooks, under kube-apiserver's names
// (pkg/controlplane/apiserver/server.go).
const (
	HookIdentityLeaseController     = "start-kube-apiserver-identity-lease-controller"
	HookIdentityLeaseGarbageCollect = "start-kube-apiserver-identity-lease-garbage-collector"
)

// IdentityLeaseComponentLabelKey labels an API server's identity Lease
// with the component that holds it ("kube-apiserver"); the garbage
// collector selects by it. Upstream's constant of the same name.
const (
	IdentityLeaseComponentLabelKey = "apiserver.kubernetes.io/identity"
	identityLeaseComponent         = "kube-apiserver"
)

// Upstream's identity lease periods (IdentityLeaseDurationSeconds,
// IdentityLeaseRenewIntervalPeriod, IdentityLeaseGCPeriod).
const (
	DefaultIdentityLeaseDuration      = 3600 * time.Second
	DefaultIdentityLeaseRenewInterval = 10 * time.Second
	DefaultIdentityLeaseGCPeriod      = 3600 * time.Second
)

// IdentityLeaseConfig sets the identity lease's periods; a zero field
// takes upstream's default. Tests shorten them.
type IdentityLeaseConfig struct {
	// Duration is the lease's spec.leaseDurationSeconds (whole seconds).
	Duration time.Duration
	// RenewInterval is how often the server renews it.
	RenewInterval time.Duration
	// GCPeriod is how often the garbage collector deletes expired ones.
	GCPeriod time.Duration
}

func (c IdentityLeaseConfig) validate() error {
	if c.Duration < 0 || c.RenewInterval < 0 || c.GCPeriod < 0 {
		return errors.New("apiserver: identity lease periods must not be negative")
	}
	if c.Duration != 0 && c.Duration < time.Second {
		return fmt.Errorf("apiserver: identity lease duration %s is below one second", c.Duration)
	}
	return nil
}

func (c IdentityLeaseConfig) withDefaults() IdentityLeaseConfig {
	if c.Duration == 0 {
		c.Duration = DefaultIdentityLeaseDuration
	}
	if c.RenewInterval == 0 {
		c.RenewInterval = DefaultIdentityLeaseRenewInterval
	}
	if c.GCPeriod == 0 {
		c.GCPeriod = DefaultIdentityLeaseGCPeriod
	}
	return c
}

// hostname is the kubernetes.io/hostname label's value (a variable for
// tests).
var hostname = os.Hostname

// IdentityLeaseName is the name of the identity Lease of the API server
// listening on address (host:port) of the machine hostname. Upstream's
// is "apiserver-" and the lower-case base32 of the first 16 bytes of the
// SHA-256 of the length-prefixed hostname and "kube-apiserver", so one
// machine has one name, and a restarted server takes its lease back.
// Several kubesim API servers share one machine, so kubesim's hash also
// covers the listen address: they get a Lease each, and a server
// restarted on the same address still takes its own back.
func IdentityLeaseName(hostname, address string) string {
	var b []byte
	for _, field := range []string{hostname, identityLeaseComponent, address} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(field)))
		b = append(b, field...)
	}
	sum := sha256.Sum256(b)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:16]))
}

// identityLease is the controller that keeps one server's Lease, as
// upstream's component-helpers lease controller: it creates the Lease
// (holder: the name, "_", a UUID made at start; the duration; the
// renew time) and renews spec.renewTime every RenewInterval, asserting
// the labels each time. As upstream, an existing Lease keeps the holder
// it has (a restarted server renews its old Lease). It runs in one
// goroutine.
type identityLease struct {
	reg                *registry.Registry
	name, holder, host string
	cfg                IdentityLeaseConfig
	latest             *coordinationv1.Lease
}

// identityLeaseHook starts the identity lease controller and returns,
// as upstream's hook does.
func (s *Server) identityLeaseHook(ctx PostStartHookContext) error {
	host, err := hostname()
	if err != nil {
		return fmt.Errorf("hostname for the apiserver identity: %w", err)
	}
	name := IdentityLeaseName(host, s.ln.Addr().String())
	c := &identityLease{reg: s.reg, name: name, holder: name + "_" + string(uuid.NewUUID()), host: host,
		cfg: s.cfg.IdentityLease.withDefaults()}
	ctx.Go(func(ctx context.Context) { c.run(ctx, s.cfg.errorLog().Printf) })
	return nil
}

// Backoff of a failed create or read, as upstream's backoffEnsureLease
// (doubling from 200 ms, at most 7 s).
const (
	identityLeaseBackoff    = 200 * time.Millisecond
	identityLeaseMaxBackoff = 7 * time.Second
)

// run syncs at once, then every RenewInterval, until ctx is done; a
// failed sync is retried with backoff.
func (c *identityLease) run(ctx context.Context, logf func(string, ...any)) {
	backoff := identityLeaseBackoff
	for {
		wait := c.cfg.RenewInterval
		if err := c.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			logf("identity lease %s: %v", c.name, err)
			wait, backoff = min(backoff, c.cfg.RenewInterval), min(2*backoff, identityLeaseMaxBackoff)
		} else {
			backoff = identityLeaseBackoff
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// sync renews the Lease, creating it if it is missing.
func (c *identityLease) sync(ctx context.Context) error {
	if c.latest != nil {
		if err := c.update(ctx, c.latest); err == nil {
			return nil
		}
	}
	obj, err := c.reg.Leases.Get(ctx, metav1.NamespaceSystem, c.name, nil)
	if apierrors.IsNotFound(err) {
		created, err := c.reg.Leases.Create(ctx, metav1.NamespaceSystem, c.desired(nil), nil, registry.Options{})
		if err != nil {
			return fmt.Errorf("create: %w", err)
		}
		c.latest = created.(*coordinationv1.Lease)
		return nil
	}
	if err != nil {
		return fmt.Errorf("get: %w", err)
	}
	return c.update(ctx, obj.(*coordinationv1.Lease))
}

// update writes base renewed, with base's resourceVersion (a conflict
// makes the next sync read it again).
func (c *identityLease) update(ctx context.Context, base *coordinationv1.Lease) error {
	want := c.desired(base)
	out, _, err := c.reg.Leases.Update(ctx, metav1.NamespaceSystem, c.name,
		func(context.Context, runtime.Object) (runtime.Object, error) { return want, nil }, nil, nil, registry.Options{})
	if err != nil {
		c.latest = nil
		return fmt.Errorf("update: %w", err)
	}
	c.latest = out.(*coordinationv1.Lease)
	return nil
}

// desired is base (nil: a new Lease) with the duration, the renew time
// now and the labels set.
func (c *identityLease) desired(base *coordinationv1.Lease) *coordinationv1.Lease {
	var l *coordinationv1.Lease
	if base == nil {
		holder := c.holder
		l = &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: metav1.NamespaceSystem},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	} else {
		l = base.DeepCopy()
	}
	seconds := int32(c.cfg.Duration / time.Second)
	l.Spec.LeaseDurationSeconds = &seconds
	l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
	if l.Labels == nil {
		l.Labels = map[string]string{}
	}
	l.Labels[IdentityLeaseComponentLabelKey] = identityLeaseComponent
	l.Labels[corev1.LabelHostname] = c.host
	return l
}
