package embedetcd_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/embedetcd"
)

// listener is a listening socket of this process, from /proc/net.
type listener struct {
	proto string // unix, tcp, tcp6
	// addr is the unix path ("@name" for an abstract socket, "" for an
	// unnamed one) or the hex local address of a TCP socket.
	addr string
}

// ownListeners lists the sockets this process listens on.
func ownListeners(t *testing.T) []listener {
	t.Helper()
	inodes := socketInodes(t)
	var out []listener
	for _, table := range []string{"unix", "tcp", "tcp6"} {
		f, err := os.Open("/proc/net/" + table)
		if err != nil {
			t.Skipf("no /proc/net/%s: %v", table, err)
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for sc.Scan() {
			if l, ok := parseListener(table, strings.Fields(sc.Text()), inodes); ok {
				out = append(out, l)
			}
		}
		f.Close()
	}
	return out
}

// parseListener reads one line of /proc/net/<table> and reports whether
// it is a listening socket whose inode this process holds.
func parseListener(table string, f []string, inodes map[string]bool) (listener, bool) {
	if table == "unix" {
		// Num RefCount Protocol Flags Type St Inode [Path]
		const acceptcon = "00010000"
		if len(f) < 7 || f[3] != acceptcon || !inodes[f[6]] {
			return listener{}, false
		}
		path := ""
		if len(f) > 7 {
			path = f[7]
		}
		return listener{"unix", path}, true
	}
	// sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
	const listen = "0A"
	if len(f) < 10 || f[3] != listen || !inodes[f[9]] {
		return listener{}, false
	}
	return listener{table, f[1]}, true
}

// socketInodes returns the inodes of the sockets among this process's
// open files.
func socketInodes(t *testing.T) map[string]bool {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	out := map[string]bool{}
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			out[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] = true
		}
	}
	return out
}

// TestNoEndpointForOtherUsers: the member's only listener is its client
// socket, a file in the 0700 data directory. An abstract unix socket (as
// etcd makes of a path-only peer URL) or a TCP port would let any local
// user talk to etcd behind the API server's back: raft messages to the
// peer endpoint, reads and writes to the client one.
func TestNoEndpointForOtherUsers(t *testing.T) {
	dir := t.TempDir()
	cfg := embedetcd.NewConfig(dir)
	s, err := embedetcd.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	client := filepath.Join(cfg.Dir, "client.sock")
	var others []listener
	for _, l := range ownListeners(t) {
		if l.proto == "unix" && l.addr == client {
			continue
		}
		others = append(others, l)
		t.Errorf("the process listens on %s %q besides etcd's client socket %s", l.proto, l.addr, client)
	}
	for _, path := range []string{client, cfg.LogFile} {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v (%v), want no access for group and others", path, fi.Mode().Perm(), err)
		}
	}
	// This user reaches the client socket (so a failure below is the
	// permissions, not curl); another user reaches nothing: not the
	// client socket, and not any other listener found above.
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on PATH")
	}
	if out, err := exec.Command("curl", curlArgs(listener{"unix", client})[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("curl as this user: %v: %s", err, out)
	}
	for _, l := range append(others, listener{"unix", client}) {
		if out, err := asNobody(t, curlArgs(l)...); err == nil {
			t.Errorf("user nobody reached %s %q: %s", l.proto, l.addr, out)
		}
	}
}

// curlArgs are the arguments of a curl that reaches l over HTTP
// (etcd's client and peer endpoints both answer HTTP/1.1).
func curlArgs(l listener) []string {
	base := []string{"curl", "-sS", "--max-time", "5", "-f"}
	switch {
	case l.proto != "unix":
		return append(base, "http://"+hexAddr(l.addr)+"/members")
	case strings.HasPrefix(l.addr, "@"):
		return append(base, "--abstract-unix-socket", l.addr[1:], "http://etcd/members")
	}
	return append(base, "--unix-socket", l.addr, "http://etcd/version")
}

// hexAddr turns /proc/net/tcp's "0100007F:0050" into "127.0.0.1:80"
// (IPv4; an IPv6 address is returned as it is, and curl fails on it,
// which is reported all the same since the listener itself is an error).
func hexAddr(a string) string {
	ip, port, _ := strings.Cut(a, ":")
	n, err1 := strconv.ParseUint(ip, 16, 32)
	p, err2 := strconv.ParseUint(port, 16, 16)
	if err1 != nil || err2 != nil {
		return a
	}
	return fmt.Sprintf("%d.%d.%d.%d:%d", byte(n), byte(n>>8), byte(n>>16), byte(n>>24), p)
}

// asNobody runs args as uid and gid 65534 with no supplementary groups.
// It skips the test where that cannot be done (not root, no setpriv).
func asNobody(t *testing.T, args ...string) (string, error) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: cannot run a command as another user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv on PATH")
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		t.Skipf("no %s on PATH", args[0])
	}
	cmd := exec.Command(setpriv, append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", "--"}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}
