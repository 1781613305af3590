package embedetcd

import (
	"net"
	"strconv"
	"testing"
)

// TestTwoLoopbackPortsOutsideEphemeral: where the kernel says where its
// ephemeral ports start, both ports come from below it (and above
// minChosenPort), are different, and are free to listen on.
func TestTwoLoopbackPortsOutsideEphemeral(t *testing.T) {
	low := ephemeralLow()
	if low <= minChosenPort+1000 {
		t.Skipf("ephemeral range starts at %d: nothing to draw from below it", low)
	}
	a, b, err := twoLoopbackPorts()
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("the same address twice: %s", a)
	}
	for _, addr := range []string{a, b} {
		_, p, err := net.SplitHostPort(addr)
		if err != nil {
			t.Fatal(err)
		}
		port, _ := strconv.Atoi(p)
		if port < minChosenPort || port >= low {
			t.Errorf("port %d not in [%d, %d)", port, minChosenPort, low)
		}
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("listen on %s: %v", addr, err)
			continue
		}
		l.Close()
	}
}
