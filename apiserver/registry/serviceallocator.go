package registry

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// kube-apiserver's defaults for --service-cluster-ip-range and
// --service-node-port-range.
const (
	DefaultServiceCIDR   = "10.96.0.0/12"
	DefaultNodePortBase  = 30000
	DefaultNodePortCount = 2768 // 30000-32767
)

// ServiceAllocator hands out cluster IPs from the service CIDR and node
// ports from the node-port range, as upstream's allocators do: a dynamic
// address or port is drawn at random from the upper part of the range
// (above upstream's offset: 256 addresses of a /12, 86 ports of
// 30000-32767), the lower part being kept for values asked by name, and
// falls back to the lower part when the upper is full.
//
// Unlike kube-apiserver, which persists its allocations in etcd (an
// IPAddress object per cluster IP, a RangeAllocation bitmap for node
// ports) and repairs them with controllers, kubesim keeps them in memory
// and rebuilds them from the stored Services: Run lists them at start and
// follows their watch (a deleted Service frees what it held). It assumes
// one API server allocates for an etcd. It is safe for concurrent use.
type ServiceAllocator struct {
	base            uint32 // the CIDR's network address
	size            uint32 // addresses in the CIDR, network and broadcast included
	ipOffset        uint32
	portBase        int32
	portSize        int32
	portOffset      int32
	synced          chan struct{}
	syncOnce        sync.Once
	mu              sync.Mutex
	ips             map[uint32]string // address offset -> owner (UID, or a pending reservation)
	ports           map[int32]string
	observed        map[types.UID]int64 // newest resourceVersion seen per Service
	nextReservation int
}

// NewServiceAllocator returns an allocator for cidr (IPv4) and the
// node ports base..base+count-1.
func NewServiceAllocator(cidr string, portBase, portCount int32) (*ServiceAllocator, error) {
	_, ipnet, err := net.ParseCIDR(cidr)
	if err != nil || ipnet.IP.To4() == nil {
		return nil, fmt.Errorf("service CIDR %q: want an IPv4 CIDR", cidr)
	}
	ones, bits := ipnet.Mask.Size()
	size := uint32(1) << uint(bits-ones)
	if size < 4 || portCount < 1 {
		return nil, fmt.Errorf("service CIDR %q or node-port range too small", cidr)
	}
	return &ServiceAllocator{
		base: binary.BigEndian.Uint32(ipnet.IP.To4()), size: size, ipOffset: rangeOffset(size, 16, 256, 16),
		portBase: portBase, portSize: portCount, portOffset: int32(rangeOffset(uint32(portCount), 16, 128, 32)),
		synced: make(chan struct{}), ips: map[uint32]string{}, ports: map[int32]string{}, observed: map[types.UID]int64{},
	}, nil
}

// rangeOffset is upstream's calculateRangeOffset: min(max(lo, size/step), hi),
// 0 for ranges of lo or fewer.
func rangeOffset(size, lo, hi, step uint32) uint32 {
	if size <= lo {
		return 0
	}
	return min(max(lo, size/step), hi)
}

// FirstIP is the first usable address of the CIDR: the kubernetes
// Service's (10.96.0.1 for the default range).
func (a *ServiceAllocator) FirstIP() string { return a.ipString(1) }

func (a *ServiceAllocator) ipString(off uint32) string {
	b := make(net.IP, 4)
	binary.BigEndian.PutUint32(b, a.base+off)
	return b.String()
}

// ipOffsetOf returns the offset of ip in the CIDR, or false.
func (a *ServiceAllocator) ipOffsetOf(ip string) (uint32, bool) {
	p := net.ParseIP(ip).To4()
	if p == nil {
		return 0, false
	}
	v := binary.BigEndian.Uint32(p)
	if v < a.base || v-a.base >= a.size {
		return 0, false
	}
	return v - a.base, true
}

// Run keeps the allocations in step with the stored Services until ctx is
// done: a list, then a watch, again after the watch ends.
func (a *ServiceAllocator) Run(ctx context.Context, services *Store) {
	if services.Storage().WaitForWatchCache(ctx) != nil {
		return
	}
	for ctx.Err() == nil {
		a.listAndWatch(ctx, services)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

func (a *ServiceAllocator) listAndWatch(ctx context.Context, services *Store) {
	list, err := services.List(ctx, "", nil)
	if err != nil {
		return
	}
	sl := list.(*corev1.ServiceList)
	a.rebuild(sl.Items)
	a.syncOnce.Do(func() { close(a.synced) })
	w, err := services.Watch(ctx, "", listFrom(sl.ResourceVersion))
	if err != nil {
		return
	}
	defer w.Stop()
	for ev := range w.ResultChan() {
		s, ok := ev.Object.(*corev1.Service)
		if !ok {
			if ev.Type == watch.Error {
				return
			}
			continue
		}
		a.mu.Lock()
		if ev.Type == watch.Deleted {
			a.releaseOwnerLocked(string(s.UID))
			a.observed[s.UID] = 1<<62 - 1
		} else {
			a.observeLocked(s)
		}
		a.mu.Unlock()
	}
}

// rebuild replaces what stored Services hold by what items hold; the
// reservations of writes in flight stay.
func (a *ServiceAllocator) rebuild(items []corev1.Service) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k, o := range a.ips {
		if !strings.HasPrefix(o, pendingPrefix) {
			delete(a.ips, k)
		}
	}
	for k, o := range a.ports {
		if !strings.HasPrefix(o, pendingPrefix) {
			delete(a.ports, k)
		}
	}
	a.observed = map[types.UID]int64{}
	for i := range items {
		a.observeLocked(&items[i])
	}
}

// pendingPrefix marks the owner of a reservation whose create has not
// finished.
const pendingPrefix = "pending/"

// observeLocked records what a stored Service holds, unless a newer
// version of it was already seen.
func (a *ServiceAllocator) observeLocked(s *corev1.Service) {
	rv, _ := strconv.ParseInt(s.ResourceVersion, 10, 64)
	if rv < a.observed[s.UID] {
		return
	}
	a.observed[s.UID] = rv
	owner := string(s.UID)
	a.releaseOwnerLocked(owner)
	for _, ip := range s.Spec.ClusterIPs {
		if off, ok := a.ipOffsetOf(ip); ok {
			a.ips[off] = owner
		}
	}
	for _, p := range s.Spec.Ports {
		if p.NodePort != 0 {
			a.ports[p.NodePort] = owner
		}
	}
}

func (a *ServiceAllocator) releaseOwnerLocked(owner string) {
	for k, o := range a.ips {
		if o == owner {
			delete(a.ips, k)
		}
	}
	for k, o := range a.ports {
		if o == owner {
			delete(a.ports, k)
		}
	}
}

// listFrom lists or watches from resourceVersion rv.
func listFrom(rv string) *metainternalversion.ListOptions {
	return &metainternalversion.ListOptions{ResourceVersion: rv}
}

// errFull is upstream's error for a range with nothing left.
var errFull = errors.New("range is full")

// pickIP draws a free address: the upper part first, then the lower.
func (a *ServiceAllocator) pickIP() (uint32, error) {
	// Offsets 1..size-2: the network and broadcast addresses are never used.
	lo, mid, hi := uint32(1), a.ipOffset+1, a.size-2
	for _, r := range [][2]uint32{{mid, hi}, {lo, mid - 1}} {
		if r[0] > r[1] {
			continue
		}
		n := r[1] - r[0] + 1
		start := rand.Uint32N(n)
		for i := uint32(0); i < n; i++ {
			off := r[0] + (start+i)%n
			if _, used := a.ips[off]; !used {
				return off, nil
			}
		}
	}
	return 0, errFull
}

// pickPort draws a free node port the same way.
func (a *ServiceAllocator) pickPort() (int32, error) {
	for _, r := range [][2]int32{{a.portOffset, a.portSize - 1}, {0, a.portOffset - 1}} {
		if r[0] > r[1] {
			continue
		}
		n := r[1] - r[0] + 1
		start := rand.Int32N(n)
		for i := int32(0); i < n; i++ {
			p := a.portBase + r[0] + (start+i)%n
			if _, used := a.ports[p]; !used {
				return p, nil
			}
		}
	}
	return 0, errFull
}

// Allocate gives s the cluster IP and node ports it needs (old is the
// stored Service on an update, nil on a create), as upstream's service
// REST does before validation, and fills in the IP families. It waits for
// Run's first list. finish must be called with the write's outcome: the
// stored object on success (what was reserved becomes the Service's),
// nil on failure (it is released). A dry run reserves nothing.
func (a *ServiceAllocator) Allocate(ctx context.Context, s, old *corev1.Service, dryRun bool) (finish func(out runtime.Object), err error) {
	select {
	case <-a.synced:
	case <-ctx.Done():
		return nil, apierrors.NewServiceUnavailable("the service allocators are not ready")
	}
	// As upstream's beginUpdate and beginCreate: what was allocated and
	// left out of s is kept, not drawn again, and clusterIP and clusterIPs
	// agree before anything looks at them.
	if old != nil {
		patchAllocatedValues(s, old)
	}
	normalizeClusterIPs(s, old)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nextReservation++
	owner := pendingPrefix + strconv.Itoa(a.nextReservation)
	if old != nil {
		owner = string(old.UID)
	}
	tx := &allocation{a: a, owner: owner, dryRun: dryRun}
	if err := tx.clusterIP(s, old); err != nil {
		tx.rollbackLocked()
		return nil, err
	}
	if err := tx.nodePorts(s); err != nil {
		tx.rollbackLocked()
		return nil, err
	}
	return tx.finish, nil
}

// allocation is one Allocate call: what it reserved, to commit or undo.
type allocation struct {
	a      *ServiceAllocator
	owner  string
	dryRun bool
	ips    []uint32
	ports  []int32
}

func (t *allocation) reserveIP(off uint32) {
	if !t.dryRun && t.a.ips[off] != t.owner {
		t.a.ips[off] = t.owner
		t.ips = append(t.ips, off)
	}
}

func (t *allocation) reservePort(p int32) {
	if !t.dryRun && t.a.ports[p] != t.owner {
		t.a.ports[p] = t.owner
		t.ports = append(t.ports, p)
	}
}

// clusterIP allocates the primary cluster IP (asked or drawn), and sets
// the IP family fields, as upstream's initIPFamilyFields.
func (t *allocation) clusterIP(s, old *corev1.Service) error {
	if !needsClusterIP(s) {
		return nil
	}
	if s.Spec.IPFamilyPolicy == nil {
		policy := corev1.IPFamilyPolicySingleStack
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			policy = *old.Spec.IPFamilyPolicy
		case isHeadless(s) && len(s.Spec.Selector) == 0:
			policy = corev1.IPFamilyPolicyRequireDualStack // headless and selectorless, as upstream
		}
		s.Spec.IPFamilyPolicy = &policy
	}
	if len(s.Spec.IPFamilies) == 0 {
		s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if isHeadless(s) {
		s.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
		return nil
	}
	if old != nil && needsClusterIP(old) && len(old.Spec.ClusterIPs) > 0 {
		return nil // kept; validation refuses a change
	}
	if s.Spec.ClusterIP == "" {
		off, err := t.a.pickIP()
		if err != nil {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", s.Name, err))
		}
		t.reserveIP(off)
		s.Spec.ClusterIP, s.Spec.ClusterIPs = t.a.ipString(off), []string{t.a.ipString(off)}
		return nil
	}
	ip := s.Spec.ClusterIP
	off, ok := t.a.ipOffsetOf(ip)
	var msg string
	switch {
	case net.ParseIP(ip) == nil:
		return nil // validation reports it
	case !ok || off == 0 || off == t.a.size-1:
		// Upstream's MetaAllocator finds no ServiceCIDR holding the IP
		// (servicecidr.PrefixContainsIP leaves out the network and
		// broadcast addresses) before any range check: ErrMismatchedNetwork.
		msg = "the provided network does not match the current range"
	case t.a.ips[off] != "" && t.a.ips[off] != t.owner:
		msg = "provided IP is already allocated"
	default:
		t.reserveIP(off)
		s.Spec.ClusterIPs = []string{ip}
		return nil
	}
	return apierrors.NewInvalid(Services.Kind.GroupKind(), s.Name, field.ErrorList{field.Invalid(field.NewPath("spec", "clusterIPs"), s.Spec.ClusterIPs,
		fmt.Sprintf("failed to allocate IP %s: %s", ip, msg))})
}

// nodePorts allocates a node port to each port of a NodePort (or
// LoadBalancer) Service that has none, checking those asked; ports of
// the same number (TCP and UDP 53) share one, as upstream.
func (t *allocation) nodePorts(s *corev1.Service) error {
	if !needsNodePorts(s) {
		return nil
	}
	byPort := map[int32]int32{}
	for i := range s.Spec.Ports {
		sp := &s.Spec.Ports[i]
		if sp.NodePort == 0 {
			if np, ok := byPort[sp.Port]; ok {
				sp.NodePort = np
				continue
			}
			np, err := t.a.pickPort()
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
			}
			t.reservePort(np)
			sp.NodePort, byPort[sp.Port] = np, np
			continue
		}
		if prev, ok := byPort[sp.Port]; ok && prev == sp.NodePort {
			continue
		}
		var msg string
		switch owner := t.a.ports[sp.NodePort]; {
		case sp.NodePort < t.a.portBase || sp.NodePort >= t.a.portBase+t.a.portSize:
			msg = fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", t.a.portBase, t.a.portBase+t.a.portSize-1)
		case owner != "" && owner != t.owner:
			msg = "provided port is already allocated"
		default:
			t.reservePort(sp.NodePort)
			byPort[sp.Port] = sp.NodePort
			continue
		}
		return apierrors.NewInvalid(Services.Kind.GroupKind(), s.Name, field.ErrorList{
			field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), sp.NodePort, msg)})
	}
	return nil
}

// finish commits the reservations to the stored Service, or undoes them.
func (t *allocation) finish(out runtime.Object) {
	t.a.mu.Lock()
	defer t.a.mu.Unlock()
	s, ok := out.(*corev1.Service)
	if !ok || s == nil {
		t.rollbackLocked()
		return
	}
	t.a.observeLocked(s)
	if t.owner != string(s.UID) {
		t.a.releaseOwnerLocked(t.owner)
	}
}

// rollbackLocked frees what this allocation reserved.
func (t *allocation) rollbackLocked() {
	for _, off := range t.ips {
		if t.a.ips[off] == t.owner {
			delete(t.a.ips, off)
		}
	}
	for _, p := range t.ports {
		if t.a.ports[p] == t.owner {
			delete(t.a.ports, p)
		}
	}
}

// setUpServiceAllocation gives the services store its allocator, on
// kube-apiserver's default ranges.
func (r *Registry) setUpServiceAllocation() error {
	a, err := NewServiceAllocator(DefaultServiceCIDR, DefaultNodePortBase, DefaultNodePortCount)
	if err != nil {
		return err
	}
	r.ServiceAllocator = a
	r.Services.strategy.BeginCreate = func(ctx context.Context, obj runtime.Object, opts Options) (func(runtime.Object), error) {
		return a.Allocate(ctx, obj.(*corev1.Service), nil, opts.DryRun)
	}
	r.Services.strategy.BeginUpdate = func(ctx context.Context, obj, old runtime.Object, opts Options) (func(runtime.Object), error) {
		return a.Allocate(ctx, obj.(*corev1.Service), old.(*corev1.Service), opts.DryRun)
	}
	return nil
}
