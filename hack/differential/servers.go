package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// readyLine is the last line kubesim serve prints once its cluster is up.
const readyLine = "Press Ctrl-C to stop."

// kubesimServer is a `kubesim serve` this tool started.
type kubesimServer struct {
	cmd     *exec.Cmd
	dataDir string
	done    chan struct{} // closed once cmd has exited
}

// startKubesim starts `bin serve` with one node at speed 0 on a free
// loopback port, its data in dir/kubesim (its stderr in dir/kubesim.err),
// and returns once it is ready.
func startKubesim(ctx context.Context, bin, dir string) (*kubesimServer, error) {
	dataDir := filepath.Join(dir, "kubesim")
	errFile, err := os.Create(filepath.Join(dir, "kubesim.err"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve", "--data-dir", dataDir, "--address", "127.0.0.1",
		"--port", "0", "--nodes", "1", "--speed", "0")
	cmd.Stderr = errFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &kubesimServer{cmd: cmd, dataDir: dataDir, done: make(chan struct{})}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() { // read to the end, so that serve never blocks writing
			if strings.TrimSpace(sc.Text()) == readyLine {
				close(ready)
			}
		}
		_ = cmd.Wait()
		errFile.Close()
		close(s.done)
	}()
	select {
	case <-ready:
		return s, nil
	case <-s.done:
		return nil, fmt.Errorf("kubesim serve exited before it was ready; see %s", errFile.Name())
	case <-ctx.Done():
		s.stop()
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		s.stop()
		return nil, errors.New("kubesim serve was not ready within 2 minutes")
	}
}

// kubeconfig is the admin kubeconfig serve wrote.
func (s *kubesimServer) kubeconfig() string { return filepath.Join(s.dataDir, "kubeconfig") }

// stop interrupts serve as Ctrl-C does; after 30 s it is killed.
func (s *kubesimServer) stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
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
