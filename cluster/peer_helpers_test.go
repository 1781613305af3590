package cluster_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// peerInstall is where the peer's pieces are: the directory of its
// binaries (etcd, kube-apiserver) and the start-peer script that runs
// them (../shared/peer in the project's layout).
type peerInstall struct{ bin, start string }

// peerNotBuilt is the first line of the skip message when the peer's
// binaries are missing; kubesim bench prints it in the table.
const peerNotBuilt = "peer not built (../shared/peer/build --all)"

// findPeer returns the peer's install, or skips b with a message whose
// first line says what is missing. The binaries are looked for in
// $KUBESIM_PEER_BIN, else in ${TMPDIR:-/tmp}/k8s-peer/bin (where
// ../shared/peer/build puts them); start-peer in $KUBESIM_PEER_START,
// else in shared/peer of this directory or one of its parents.
func findPeer(b *testing.B) peerInstall {
	bin := os.Getenv("KUBESIM_PEER_BIN")
	if bin == "" {
		bin = filepath.Join(os.TempDir(), "k8s-peer", "bin")
	}
	for _, name := range []string{"etcd", "kube-apiserver"} {
		if fi, err := os.Stat(filepath.Join(bin, name)); err != nil || fi.Mode()&0o111 == 0 {
			b.Skipf("%s\nno executable %s; KUBESIM_PEER_BIN names the directory of the peer's binaries",
				peerNotBuilt, filepath.Join(bin, name))
		}
	}
	start := os.Getenv("KUBESIM_PEER_START")
	if start == "" {
		start = findUp("shared/peer/start-peer")
	}
	if start == "" {
		b.Skipf("peer's start-peer not found (KUBESIM_PEER_START)\nno shared/peer/start-peer in this directory or its parents; KUBESIM_PEER_START names the script")
	}
	return peerInstall{bin: bin, start: start}
}

// findUp returns the first dir/rel that exists, dir being the working
// directory or one of its parents; "" if none.
func findUp(rel string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if p := filepath.Join(dir, rel); fileExists(p) {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// peerRun is one running peer: its kubeconfig (admin token), its API's
// and its etcd's URLs, its run directory (start-peer's: pki/, the logs)
// and the pids of its etcd and kube-apiserver (and of its scheduler and
// controller manager once startPeerControlPlane has run).
type peerRun struct {
	kubeconfig, api, etcd, dir string
	pids                       []int
}

// peerAuditPolicy logs every request at level Metadata, as kubesim's
// audit log does (stages RequestReceived and ResponseComplete).
const peerAuditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
`

// peerStartAttempts is how often startPeer tries: start-peer picks free
// ports at random, which another program on this shared machine may take
// before kube-apiserver binds them.
const peerStartAttempts = 3

// startPeer starts the peer's kube-apiserver on an etcd of its own with
// start-peer, adding args to kube-apiserver's flags; audit adds an audit
// log at level Metadata in blocking mode (the log backend's default),
// rotated as kubesim rotates its own. Its run directory (PKI, data, logs)
// is a temporary directory of b; both processes stop when b ends. A
// failed start is logged with the end of the peer's logs and tried again
// in a new directory, up to peerStartAttempts times.
func startPeer(b *testing.B, inst peerInstall, args []string, audit bool) peerRun {
	for attempt := 1; ; attempt++ {
		dir := filepath.Join(b.TempDir(), "run")
		kubeconfig, err := startPeerIn(b, inst, dir, args, audit)
		if err != nil {
			err = fmt.Errorf("start the peer (attempt %d of %d): %w\n%s", attempt, peerStartAttempts, err, peerLogTails(dir))
			if attempt == peerStartAttempts {
				b.Fatal(err)
			}
			b.Log(err)
			continue
		}
		env := readPeerEnv(b, filepath.Join(dir, "peer.env"))
		run := peerRun{kubeconfig: kubeconfig, api: env["PEER_API"], etcd: env["PEER_ETCD"], dir: dir}
		for _, k := range []string{"PEER_ETCD_PID", "PEER_APISERVER_PID"} {
			pid, err := strconv.Atoi(env[k])
			if err != nil {
				b.Fatalf("peer.env: %s=%q", k, env[k])
			}
			run.pids = append(run.pids, pid)
		}
		return run
	}
}

// startPeerIn runs start-peer in dir (stopped when b ends) and returns
// the kubeconfig's path.
func startPeerIn(b *testing.B, inst peerInstall, dir string, args []string, audit bool) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	if audit {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(peerAuditPolicy), 0o600); err != nil {
			return "", err
		}
		args = append(slices.Clone(args), "--audit-log-path="+filepath.Join(dir, "audit.log"), "--audit-policy-file="+policy,
			"--audit-log-maxsize=100", "--audit-log-maxbackup=3", "--audit-log-maxage=366")
	}
	b.Cleanup(func() {
		stop := exec.Command(inst.start, "stop", dir)
		if out, err := stop.CombinedOutput(); err != nil {
			b.Errorf("stop the peer: %v: %s", err, out)
		}
	})
	cmd := exec.Command(inst.start, dir)
	cmd.Env = append(os.Environ(), "PEER_BIN="+inst.bin, "PEER_APISERVER_ARGS="+strings.Join(args, " "))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%v: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return strings.TrimSpace(string(out)), nil
}

// peerLogTails is the last lines of the peer's logs in dir.
func peerLogTails(dir string) string {
	var sb strings.Builder
	for _, name := range []string{"etcd.log", "kube-apiserver.log"} {
		data, _ := os.ReadFile(filepath.Join(dir, name))
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		fmt.Fprintf(&sb, "--- the end of %s:\n%s\n", name, strings.Join(lines[max(0, len(lines)-8):], "\n"))
	}
	return sb.String()
}

// readPeerEnv reads start-peer's peer.env (KEY=VALUE lines).
func readPeerEnv(b *testing.B, path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatalf("read peer.env: %v", err)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			env[k] = v
		}
	}
	return env
}

// clockTicks is the unit of /proc/<pid>/stat's CPU times (USER_HZ, 100
// on Linux).
const clockTicks = 100

// pidsCPU is the CPU time (user and system) the processes have used so
// far, read from /proc/<pid>/stat.
func pidsCPU(b *testing.B, pids []int) time.Duration {
	var total time.Duration
	for _, pid := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			b.Fatalf("CPU time of pid %d: %v", pid, err)
		}
		// Fields after the command's closing parenthesis: state is the
		// first, utime the 12th and stime the 13th (stat fields 14, 15).
		f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
		for _, s := range f[11:13] {
			ticks, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				b.Fatalf("CPU time of pid %d: %q", pid, s)
			}
			total += time.Duration(ticks) * time.Second / clockTicks
		}
	}
	return total
}
