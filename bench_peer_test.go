package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/benchtable"
)

// TestPeerEnv: the peer's runs get its bin directory and start-peer, or
// the reason their rows are skipped.
func TestPeerEnv(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin")
	if _, skip := peerEnv(bin, root); skip != benchtable.PeerNotBuilt {
		t.Errorf("no binaries: skip = %q, want %q", skip, benchtable.PeerNotBuilt)
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		writeExecutable(t, filepath.Join(bin, name))
	}
	t.Setenv("KUBESIM_PEER_START", "")
	src := filepath.Join(root, "src", "kubesim")
	if _, skip := peerEnv(bin, src); skip != "start-peer not found (KUBESIM_PEER_START)" {
		t.Errorf("no start-peer: skip = %q", skip)
	}
	start := filepath.Join(root, "src", "shared", "peer", "start-peer")
	writeExecutable(t, start)
	env, skip := peerEnv(bin, src)
	if skip != "" || !slices.Equal(env, []string{"KUBESIM_PEER_BIN=" + bin, "KUBESIM_PEER_START=" + start}) {
		t.Errorf("peerEnv = %q, %q; want the bin directory and %s", env, skip, start)
	}
	t.Setenv("KUBESIM_PEER_START", "/elsewhere/start-peer")
	if env, _ := peerEnv(bin, src); env[1] != "KUBESIM_PEER_START=/elsewhere/start-peer" {
		t.Errorf("$KUBESIM_PEER_START not taken: %q", env)
	}
}

func writeExecutable(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestBenchRunSelects: --run keeps the plan's runs whose -bench pattern
// it matches, all without one, and a bad pattern is a usage error.
func TestBenchRunSelects(t *testing.T) {
	all, err := selectedRuns("")
	if err != nil || !slices.Equal(all, slices.Repeat([]bool{true}, len(benchtable.Plan))) {
		t.Errorf(`selectedRuns(""): %v, %v; want every run`, all, err)
	}
	peer, err := selectedRuns("VsPeer")
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range benchtable.Plan {
		if peer[i] != run.Peer {
			t.Errorf("--run VsPeer: run %s selected %v, want %v (the peer's runs)", run.Pattern, peer[i], run.Peer)
		}
	}
	if _, err := selectedRuns("("); err == nil || !strings.Contains(err.Error(), `--run "("`) {
		t.Errorf("selectedRuns(%q): %v, want an error naming the flag", "(", err)
	}
}
