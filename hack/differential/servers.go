package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kubesim/kubesim/hack/internal/kubesimserve"
)

// startKubesim starts `bin serve` with one node at speed 0 on a free
// loopback port, its data in dir/kubesim (its stderr in dir/kubesim.err),
// and returns once it is ready.
func startKubesim(ctx context.Context, bin, dir string) (*kubesimserve.Server, error) {
	errFile, err := os.Create(filepath.Join(dir, "kubesim.err"))
	if err != nil {
		return nil, err
	}
	return kubesimserve.Start(ctx, bin, filepath.Join(dir, "kubesim"), []string{"--nodes", "1"}, os.Environ(), errFile)
}

// peerServer is a kube-apiserver started by the start-peer script.
type peerServer struct {
	script, runDir string
}

// startPeer runs `script` with PEER_BIN=bin; the script prints the
// kubeconfig's path once the peer is ready. Its stderr goes to
// dir/start-peer.err.
func startPeer(ctx context.Context, script, bin, dir string) (*peerServer, string, error) {
	cmd := exec.CommandContext(ctx, script, filepath.Join(dir, "peer"))
	cmd.Env = append(os.Environ(), "PEER_BIN="+bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	_ = os.WriteFile(filepath.Join(dir, "start-peer.err"), stderr.Bytes(), 0o600)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w: %s", script, err, strings.TrimSpace(stderr.String()))
	}
	kubeconfig := strings.TrimSpace(string(out))
	return &peerServer{script: script, runDir: filepath.Dir(kubeconfig)}, kubeconfig, nil
}

// stop stops the peer's kube-apiserver and etcd.
func (p *peerServer) stop() {
	cmd := exec.Command(p.script, "stop", p.runDir)
	_ = cmd.Run()
}
