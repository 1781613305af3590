package main

import (
	"bytes"
	"context"
	"iter"
	"strings"
	"testing"
	"time"
)

// TestEveryInvalidOptionListed: serve and play validate their options
// the way kube-apiserver's command does, after completing them: every
// problem at once, exit 2, each on its own line, before anything starts.
func TestEveryInvalidOptionListed(t *testing.T) {
	tests := []struct {
		args       []string
		wantStderr string
	}{
		{[]string{"serve", "--nodes", "-1", "--speed", "-2", "--port", "70000"},
			"kubesim: 3 problems with the options:\n" +
				"  --port must be between 0 and 65535, got 70000\n" +
				"  --speed must not be negative, got -2\n" +
				"  --nodes must not be negative, got -1\n" +
				"Run 'kubesim --help' for usage.\n"},
		{[]string{"serve", "--address", "localhost", "--speed", "NaN"},
			"kubesim: 2 problems with the options:\n" +
				"  --address must be an IP address, got \"localhost\"\n" +
				"  --speed must be a number, got NaN\n" +
				"Run 'kubesim --help' for usage.\n"},
		{[]string{"serve", "--speed", "0", "--node-lease-duration", "40s", "--node-monitor-grace-period", "-1s"},
			"kubesim: --node-monitor-grace-period must not be negative, got -1s\nRun 'kubesim --help' for usage.\n"},
		{[]string{"serve", "--speed", "0", "--node-lease-duration", "40s"},
			"kubesim: --node-lease-duration is renewed every 10s, which must be at most half the node monitor grace period (10s), or healthy nodes go Unknown, got 40s\nRun 'kubesim --help' for usage.\n"},
		{[]string{"serve", "--nodes", "-3"},
			"kubesim: --nodes must not be negative, got -3\nRun 'kubesim --help' for usage.\n"},
		{[]string{"play", "pod-create", "--lang", "fr", "--plain", "--json", "--speed", "-2", "--port", "-1"},
			"kubesim: 4 problems with the options:\n" +
				"  --lang must be en or zh, got \"fr\"\n" +
				"  --plain and --json cannot be used together\n" +
				"  --port must be between 0 and 65535, got -1\n" +
				"  --speed must not be negative, got -2\n" +
				"Run 'kubesim --help' for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := newRootCommand(strings.NewReader(""), &stdout, &stderr)
			cmd.SetArgs(tt.args)
			if code := exitCode(cmd.ExecuteContext(context.Background()), &stderr); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if got := stderr.String(); got != tt.wantStderr {
				t.Errorf("stderr:\n%s\nwant:\n%s", got, tt.wantStderr)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing (nothing started)", stdout.String())
			}
		})
	}
}

// TestServeBinaryListsEveryInvalidOption: the binary itself exits 2 and
// lists the three problems.
func TestServeBinaryListsEveryInvalidOption(t *testing.T) {
	p := startKubesim(t, nil, "serve", "--nodes", "-1", "--speed", "-2", "--port", "70000")
	if code := p.wait(waitTimeout); code != 2 {
		t.Errorf("exit code %d, want 2; %s", code, p.describe())
	}
	for _, want := range []string{"--nodes must not be negative, got -1", "--speed must not be negative, got -2", "--port must be between 0 and 65535, got 70000"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr %q lacks %q", p.stderr.String(), want)
		}
	}
}

// TestServeTracePrintsStartup: serve --trace prints the startup sequence
// in order before the ready line (Complete, Validate, etcd, the listener,
// the three servers of the chain as they are built, the caches, serving, each post-start hook, readiness, the components);
// plain serve prints none of it.
func TestServeTracePrintsStartup(t *testing.T) {
	p := startKubesim(t, nil, serveArgs(t.TempDir(), "--trace")...)
	var got []string
	for l := range linesUntil(t, p, readyLine) {
		got = append(got, strings.Join(strings.Fields(l), " "))
	}
	want := []string{
		"startup kubesim serve, as kube-apiserver's command: Complete → Validate → Run",
		"Complete options ok address 127.0.0.1, port 0, speed 0, 0 nodes",
		"Validate options ok every option is valid",
		"Run etcd started embedded member at unix://",
		"Run listener bound https://127.0.0.1:",
		"Run serverchain built apiextensions-apiserver, delegate the not-found handler:",
		"Run serverchain built kube-apiserver, delegate apiextensions-apiserver: the core (legacy) group at /api/v1",
		"Run serverchain built kube-aggregator, delegate kube-apiserver:",
		"Run caches ok", "Run serving ok",
		"Run poststarthook started start-system-namespaces-controller",
		"Run poststarthook finished start-system-namespaces-controller",
		"Run poststarthooks finished",
		"Run readyz ok", "Run components started",
	}
	at := 0
	for _, w := range want {
		for at < len(got) && !strings.Contains(got[at], w) {
			at++
		}
		if at == len(got) {
			t.Fatalf("no %q (in this order) in the trace:\n%s", w, strings.Join(got, "\n"))
		}
	}
	plain := startKubesim(t, nil, serveArgs(t.TempDir())...)
	for l := range linesUntil(t, plain, readyLine) {
		if strings.HasPrefix(l, "startup") || strings.Contains(l, "poststarthook") {
			t.Errorf("plain serve printed the startup trace: %q", l)
		}
	}
}

// linesUntil yields p's stdout lines up to the first containing s,
// failing the test if none comes within waitTimeout.
func linesUntil(t *testing.T, p *process, s string) iter.Seq[string] {
	t.Helper()
	return func(yield func(string) bool) {
		deadline := time.After(waitTimeout)
		for {
			select {
			case l := <-p.lines:
				if strings.Contains(l, s) || !yield(l) {
					return
				}
			case <-p.done:
				t.Fatalf("kubesim exited before printing %q; %s", s, p.describe())
			case <-deadline:
				t.Fatalf("kubesim printed no %q within %v; %s", s, waitTimeout, p.describe())
			}
		}
	}
}
