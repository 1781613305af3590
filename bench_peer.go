package main

import (
	"os"
	"path/filepath"

	"github.com/kubesim/kubesim/internal/benchtable"
)

// defaultPeerBin is --peer-bin's default: $KUBESIM_PEER_BIN, else
// ${TMPDIR:-/tmp}/k8s-peer/bin (where ../shared/peer/build puts the
// binaries) if it exists, else "".
func defaultPeerBin() string {
	if dir := os.Getenv("KUBESIM_PEER_BIN"); dir != "" {
		return dir
	}
	if dir := filepath.Join(os.TempDir(), "k8s-peer", "bin"); isDir(dir) {
		return dir
	}
	return ""
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// peerEnv is the environment of the go test runs that need the peer
// (the variables BenchmarkPodCreateVsPeer reads), or the reason their
// rows are skipped: the peer's binaries missing from bin, or no
// start-peer ($KUBESIM_PEER_START, else shared/peer/start-peer in the
// source tree's directory or a parent of it).
func peerEnv(bin, root string) (env []string, skip string) {
	for _, name := range []string{"etcd", "kube-apiserver"} {
		fi, err := os.Stat(filepath.Join(bin, name))
		if bin == "" || err != nil || fi.Mode()&0o111 == 0 {
			return nil, benchtable.PeerNotBuilt
		}
	}
	start := os.Getenv("KUBESIM_PEER_START")
	for dir := root; start == "" && dir != ""; {
		if p := filepath.Join(dir, "shared", "peer", "start-peer"); fileExists(p) {
			start = p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if start == "" {
		return nil, "start-peer not found (KUBESIM_PEER_START)"
	}
	return []string{"KUBESIM_PEER_BIN=" + bin, "KUBESIM_PEER_START=" + start}, ""
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
