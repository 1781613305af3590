package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestSecondSignalExitsAtOnce: the first SIGINT starts the graceful
// stop; a second one during it exits at once with 130 and says so. The
// stop is made to last by freezing (SIGSTOP) the external etcd member
// that serve stores in: the API server's last writes then wait for it.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	bin := kubesimBinary(t)
	dir := t.TempDir()
	pkiDir := filepath.Join(dir, "etcd-pki")
	if out, err := exec.Command(bin, "etcd", "certs", "--pki-dir", pkiDir).CombinedOutput(); err != nil {
		t.Fatalf("kubesim etcd certs: %v\n%s", err, out)
	}
	client, peer := freeLoopbackPort(t), freeLoopbackPort(t)
	member := startKubesim(t, nil, "etcd", "--pki-dir", pkiDir, "--data-dir", filepath.Join(dir, "m1"), "--name", "m1",
		"--initial-cluster", "m1=https://"+peer, "--listen-client-urls", "https://"+client)
	member.waitLine(readyLine, waitfor.Bound)
	serve := startKubesim(t, nil, serveArgs(filepath.Join(dir, "serve"), "--etcd-servers", "https://"+client,
		"--etcd-cafile", filepath.Join(pkiDir, "ca.crt"),
		"--etcd-certfile", filepath.Join(pkiDir, "apiserver-etcd-client.crt"),
		"--etcd-keyfile", filepath.Join(pkiDir, "apiserver-etcd-client.key"))...)
	serve.waitLine(readyLine, waitfor.Bound)

	member.signal(syscall.SIGSTOP)
	t.Cleanup(func() { _ = member.cmd.Process.Signal(syscall.SIGCONT) })
	serve.signal(syscall.SIGINT)
	serve.waitLine("kubesim: stopping (Ctrl-C again exits at once)", waitfor.Bound)
	serve.signal(syscall.SIGINT)
	if code := serve.wait(exitDeadline); code != exitCodeSecondSignal {
		t.Fatalf("exit code %d after the second SIGINT, want %d; %s", code, exitCodeSecondSignal, serve.describe())
	}
	if want := "kubesim: interrupt again while stopping: exiting at once, without a graceful stop\n"; !strings.HasSuffix(serve.stderr.String(), want) {
		t.Errorf("stderr %q, want it to end with %q", serve.stderr.String(), want)
	}
}

// TestInterruptContext: the context ends at the first signal; the
// second calls exit with 130 and writes one line; stop releases the
// signals without calling exit.
func TestInterruptContext(t *testing.T) {
	var stderr bytes.Buffer
	exited := make(chan int, 1)
	ctx, stop := interruptContext(context.Background(), &stderr, func(code int) { exited <- code })
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(waitfor.Bound):
		t.Fatal("the context did not end after SIGTERM")
	}
	select {
	case code := <-exited:
		t.Fatalf("exit(%d) after one signal", code)
	default:
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-exited:
		if code != 130 {
			t.Errorf("exit(%d), want exit(130)", code)
		}
	case <-time.After(waitfor.Bound):
		t.Fatal("no exit after a second SIGTERM")
	}
	if got, want := stderr.String(), "kubesim: terminated again while stopping: exiting at once, without a graceful stop\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
}

// freeLoopbackPort returns a loopback address whose port was free a
// moment ago, drawn below the kernel's usual ephemeral range (32768 and
// up), where no outgoing connection takes it before the member listens.
func freeLoopbackPort(t *testing.T) string {
	t.Helper()
	for range 100 {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(20000+rand.IntN(12000)))
		if l, err := net.Listen("tcp", addr); err == nil {
			l.Close()
			return addr
		}
	}
	t.Fatal(fmt.Errorf("no free loopback port in 20000-31999"))
	return ""
}
