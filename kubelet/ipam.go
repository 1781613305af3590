package kubelet

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// ipam hands out pod IPs from the node's pod CIDR the way the host-local
// CNI plugin does: the network address, the gateway (the first address)
// and the broadcast address are never given out, and addresses are taken
// round robin after the last one given.
type ipam struct {
	mu    sync.Mutex
	base  uint32
	size  uint32
	last  uint32
	inUse map[uint32]types.UID
}

func newIPAM(cidr string) (*ipam, error) {
	ip, ipnet, err := net.ParseCIDR(cidr)
	if err != nil {
		return nil, fmt.Errorf("kubelet: pod CIDR %q: %w", cidr, err)
	}
	if ip.To4() == nil {
		return nil, fmt.Errorf("kubelet: pod CIDR %q is not IPv4", cidr)
	}
	ones, bits := ipnet.Mask.Size()
	if bits-ones < 2 || bits-ones > 16 {
		return nil, fmt.Errorf("kubelet: pod CIDR %q must be a /16 to a /30", cidr)
	}
	base := binary.BigEndian.Uint32(ipnet.IP.To4())
	return &ipam{base: base, size: 1 << (bits - ones), last: 1, inUse: map[uint32]types.UID{}}, nil
}

func (a *ipam) addr(off uint32) string {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a.base+off)
	return net.IP(b[:]).String()
}

func (a *ipam) offset(ip string) (uint32, bool) {
	p := net.ParseIP(ip).To4()
	if p == nil {
		return 0, false
	}
	v := binary.BigEndian.Uint32(p)
	if v < a.base || v >= a.base+a.size {
		return 0, false
	}
	return v - a.base, true
}

// allocate gives pod an address.
func (a *ipam) allocate(pod types.UID) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	first, last := uint32(2), a.size-2
	for i := uint32(0); i <= last-first; i++ {
		off := first + (a.last-first+1+i)%(last-first+1)
		if _, used := a.inUse[off]; !used {
			a.inUse[off] = pod
			a.last = off
			return a.addr(off), nil
		}
	}
	return "", fmt.Errorf("no IP addresses available in range set: %s-%s", a.addr(first), a.addr(last))
}

// reserve records that pod already has ip (a pod the kubelet adopts).
func (a *ipam) reserve(ip string, pod types.UID) bool {
	off, ok := a.offset(ip)
	if !ok {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if owner, used := a.inUse[off]; used && owner != pod {
		return false
	}
	a.inUse[off] = pod
	return true
}

// release gives back pod's ip.
func (a *ipam) release(ip string, pod types.UID) {
	off, ok := a.offset(ip)
	if !ok {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inUse[off] == pod {
		delete(a.inUse, off)
	}
}
