package controlplane

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

// Validate reports the first problem with c: a negative period, or a
// duration below one second.
func (c IdentityLeaseConfig) Validate() error {
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

// IdentityLeaseController keeps one API server's identity Lease in
// kube-system, as upstream's component-helpers lease controller, which
// kube-apiserver's start-kube-apiserver-identity-lease-controller hook
// starts: it creates the Lease (holder: the name, "_", a UUID made by
// NewIdentityLeaseController; the duration; the renew time) and renews
// spec.renewTime every RenewInterval, asserting the labels each time. As
// upstream, an existing Lease keeps the holder it has (a restarted server
// renews its old Lease). Run is called once, by the controller's owner.
type IdentityLeaseController struct {
	reg                *registry.Registry
	name, holder, host string
	cfg                IdentityLeaseConfig
	logf               func(format string, args ...any)
	latest             *coordinationv1.Lease // only Run's goroutine touches it
}

// NewIdentityLeaseController returns the controller of the identity Lease
// of the API server listening on address (host:port) on this machine,
// which writes through reg and reports failures to logf. A zero field of
// cfg takes upstream's default.
func NewIdentityLeaseController(reg *registry.Registry, address string, cfg IdentityLeaseConfig, logf func(format string, args ...any)) (*IdentityLeaseController, error) {
	host, err := hostname()
	if err != nil {
		return nil, fmt.Errorf("hostname for the apiserver identity: %w", err)
	}
	name := IdentityLeaseName(host, address)
	return &IdentityLeaseController{reg: reg, name: name, holder: name + "_" + string(uuid.NewUUID()), host: host,
		cfg: cfg.withDefaults(), logf: logf}, nil
}

// Backoff of a failed create or read, as upstream's backoffEnsureLease
// (doubling from 200 ms, at most 7 s).
const (
	identityLeaseBackoff    = 200 * time.Millisecond
	identityLeaseMaxBackoff = 7 * time.Second
)

// Run syncs at once, then every RenewInterval, until ctx is done; a
// failed sync is logged and retried with backoff.
func (c *IdentityLeaseController) Run(ctx context.Context) {
	backoff := identityLeaseBackoff
	for {
		wait := c.cfg.RenewInterval
		if err := c.sync(ctx); err != nil {
			if ctx.Err() != nil {
				return
			}
			c.logf("identity lease %s: %v", c.name, err)
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
func (c *IdentityLeaseController) sync(ctx context.Context) error {
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
func (c *IdentityLeaseController) update(ctx context.Context, base *coordinationv1.Lease) error {
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
func (c *IdentityLeaseController) desired(base *coordinationv1.Lease) *coordinationv1.Lease {
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
