package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// exitDeadline is how long a test waits for kubesim to exit where it
// must exit promptly (it is meant to take well under 2 s; the deadline
// only tells a hang from an exit, on a machine however busy).
const exitDeadline = waitfor.Bound

// TestSecondServeOnBusyDataDir: a second kubesim on a data dir in use
// fails at once, naming the process that holds it, instead of waiting
// for etcd's database lock forever; the first one is not disturbed.
func TestSecondServeOnBusyDataDir(t *testing.T) {
	dir := t.TempDir()
	first := startKubesim(t, nil, serveArgs(dir)...)
	first.waitLine(readyLine, waitfor.Bound)
	for _, args := range [][]string{serveArgs(dir), {"play", "pod-create", "--plain", "--speed", "0", "--data-dir", dir}} {
		start := time.Now()
		second := startKubesim(t, nil, args...)
		if code := second.wait(exitDeadline); code != 1 {
			t.Errorf("%s: exit code %d, want 1", args[0], code)
		}
		t.Logf("%s: exited after %s", args[0], time.Since(start).Round(time.Millisecond))
		want := fmt.Sprintf("kubesim: data dir %s is in use by process %d\n", dir, first.cmd.Process.Pid)
		if got := second.stderr.String(); got != want {
			t.Errorf("%s: stderr %q, want %q", args[0], got, want)
		}
	}
	first.signal(syscall.SIGTERM)
	if code := first.wait(exitDeadline); code != 0 {
		t.Errorf("the first serve exited %d after SIGTERM, want 0; stderr: %s", code, first.stderr.String())
	}
}

// TestInterruptDuringStartup: Ctrl-C at any moment of the start (key
// generation, etcd, the API server, the components) ends kubesim
// promptly, with 130 before the cluster is up and 0 after, and a
// temporary data dir (keys, tokens, etcd's data) is removed either way.
func TestInterruptDuringStartup(t *testing.T) {
	kubesimBinary(t) // built before the clock starts
	for _, delay := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond,
		60 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond} {
		t.Run(delay.String(), func(t *testing.T) {
			tmp := t.TempDir()
			p := startKubesim(t, []string{"TMPDIR=" + tmp}, "serve", "--port", "0", "--speed", "0")
			time.Sleep(delay) // where in the start the signal lands; any point must do
			p.signal(syscall.SIGINT)
			code := p.wait(exitDeadline)
			if code == -1 && p.killedBy(syscall.SIGINT) {
				return // before main set up its handler: SIGINT's default action
			}
			if code != 130 && code != 0 {
				t.Errorf("exit code %d, want 130 (interrupted start) or 0 (stopped); stderr: %s", code, p.stderr.String())
			}
			if code == 130 && !strings.Contains(p.stderr.String(), "kubesim: interrupted before the cluster was up") {
				t.Errorf("stderr %q, want the interruption named", p.stderr.String())
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left in TMPDIR: %v", names(left))
			}
		})
	}
}

// TestInterruptWhileEtcdWaits: with etcd's database locked by another
// opener (an etcd of its own, say), etcd's start waits; Ctrl-C still
// ends kubesim promptly.
func TestInterruptWhileEtcdWaits(t *testing.T) {
	dir := t.TempDir()
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitfor.Bound)
	p.signal(syscall.SIGINT)
	if code := p.wait(exitDeadline); code != 0 {
		t.Fatalf("exit code %d after SIGINT, want 0", code)
	}
	db, err := os.Open(filepath.Join(dir, "etcd", "member", "snap", "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := syscall.Flock(int(db.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	etcdLog := filepath.Join(dir, "logs", "etcd.log")
	if err := os.Remove(etcdLog); err != nil {
		t.Fatal(err)
	}
	p = startKubesim(t, nil, serveArgs(dir)...)
	waitForLog(t, etcdLog, "Opening db file", waitfor.Bound)
	p.signal(syscall.SIGINT)
	start := time.Now()
	if code := p.wait(exitDeadline); code != 130 {
		t.Errorf("exit code %d, want 130; stderr: %s", code, p.stderr.String())
	}
	t.Logf("exited %s after SIGINT", time.Since(start).Round(time.Millisecond))
}

// TestCorruptDatabaseIsReported: a damaged etcd database is an error
// message and exit code 1, not etcd's crash (SIGBUS, exit 2).
func TestCorruptDatabaseIsReported(t *testing.T) {
	dir := t.TempDir()
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitfor.Bound)
	p.signal(syscall.SIGINT)
	if code := p.wait(exitDeadline); code != 0 {
		t.Fatalf("exit code %d after SIGINT, want 0", code)
	}
	if err := os.Truncate(filepath.Join(dir, "etcd", "member", "snap", "db"), 8192); err != nil {
		t.Fatal(err)
	}
	p = startKubesim(t, nil, serveArgs(dir)...)
	if code := p.wait(exitDeadline); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	want := "kubesim: etcd data in " + dir + " is corrupt: the database file has 8192 bytes but its pages reach byte"
	if got := p.stderr.String(); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", got, want)
	}
}

// TestDataDirModeTightened: a data dir made by hand with mode 0777 is
// tightened to 0700 before anything secret is written into it.
func TestDataDirModeTightened(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil { // past the umask
		t.Fatal(err)
	}
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitfor.Bound)
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("data dir mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	p.signal(syscall.SIGINT)
	p.wait(exitDeadline)
}

// waitForLog waits for a line containing s in the file at path.
func waitForLog(t *testing.T, path, s string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), s) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s has no %q after %s", path, s, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func names(entries []os.DirEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
