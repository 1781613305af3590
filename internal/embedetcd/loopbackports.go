package embedetcd

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// twoLoopbackPorts returns two loopback addresses whose ports were free
// a moment ago (etcd must know its URLs before it listens). The ports are
// drawn below the kernel's ephemeral range (net.ipv4.ip_local_port_range),
// from which every outgoing connection of every program takes its own
// port: a port from inside it, free when chosen, may be some connection's
// by the time etcd listens on it ("bind: address already in use", as a
// test run once met). Where that range is unknown, any free port.
func twoLoopbackPorts() (string, string, error) {
	var addrs [2]string
	for i := range addrs {
		l, err := listenOutsideEphemeral(ephemeralLow())
		if err != nil {
			return "", "", fmt.Errorf("etcd: a free loopback port: %w", err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs[0], addrs[1], nil
}

// minChosenPort is the lowest port twoLoopbackPorts draws.
const minChosenPort = 10000

// listenOutsideEphemeral listens on a loopback port drawn from
// [minChosenPort, below), trying a few, or on any free port if none is
// free or the range is too small.
func listenOutsideEphemeral(below int) (net.Listener, error) {
	if below > minChosenPort+1000 {
		for range 50 {
			port := minChosenPort + rand.IntN(below-minChosenPort)
			if l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
				return l, nil
			}
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

// ephemeralLow is the first port of the kernel's ephemeral range, 0 if
// it cannot be read.
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return 0
	}
	return lo
}
