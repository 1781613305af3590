package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// waitTimeout is how long a test of the binary waits for kubesim to
// print a line or to exit, and a client for an answer: generous, so that
// only a hang reaches it, never a slow machine. (startup_test.go's
// exitDeadline is shorter; the tests here do not use it.)
const waitTimeout = waitfor.Bound

// Sizes of the crash test.
const (
	crashRounds  = 10
	crashBurst   = 50
	crashWorkers = 8
	// crashNodes hold every pod the rounds can create, acknowledged or
	// not (110 pods a node): with 3 nodes a bad draw left pods Pending
	// with "Too many pods", which is right but not what is tested.
	crashNodes = (crashRounds*crashBurst + 109) / 110
)

// TestKillDuringPodBurst kills `kubesim serve --data-dir` with SIGKILL
// at a random point of a burst of pod creates, crashRounds times. After
// each restart, every create the API server acknowledged is there with
// the UID it was given and reaches Running; at the end, etcd's history
// shows that no pod was ever bound twice (spec.nodeName set once, never
// changed).
func TestKillDuringPodBurst(t *testing.T) {
	dir := t.TempDir()
	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	t.Logf("seed %d", seed)
	acked := map[string]types.UID{}
	var inFlight, killedAt []int
	for round := 1; round <= crashRounds; round++ {
		p := startKubesim(t, nil, serveArgs(dir, "--nodes", strconv.Itoa(crashNodes))...)
		p.waitLine(readyLine, waitTimeout)
		client := mustClientFor(t, filepath.Join(dir, "kubeconfig"))
		checkAcknowledged(t, client, acked, round, p)
		killAfter := rng.IntN(crashBurst)
		n, failed := burst(t, client, acked, round, killAfter, p)
		killedAt, inFlight = append(killedAt, n), append(inFlight, failed)
	}
	p := startKubesim(t, nil, serveArgs(dir, "--nodes", strconv.Itoa(crashNodes))...)
	p.waitLine(readyLine, waitTimeout)
	checkAcknowledged(t, mustClientFor(t, filepath.Join(dir, "kubeconfig")), acked, crashRounds+1, p)
	p.signal(syscall.SIGTERM)
	if code := p.wait(waitTimeout); code != 0 {
		t.Fatalf("serve exited %d after SIGTERM", code)
	}
	bindings := bindingsFromHistory(t, dir)
	for name := range acked {
		if got := bindings[name]; len(got) != 1 {
			t.Errorf("acknowledged pod %s: spec.nodeName history %v, want exactly one binding", name, got)
		}
	}
	for name, got := range bindings {
		if len(got) > 1 {
			t.Errorf("pod %s: spec.nodeName history %v, want one binding at most", name, got)
		}
	}
	t.Logf("%d rounds: %d creates acknowledged; SIGKILL after %v acknowledged creates; creates failed (cut short or after the kill) %v; %d pods in etcd's history",
		crashRounds, len(acked), killedAt, inFlight, len(bindings))
}

func mustClientFor(t *testing.T, kubeconfig string) kubernetes.Interface {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cfg.QPS, cfg.Burst, cfg.Timeout = -1, 0, waitTimeout
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkAcknowledged waits until every acknowledged pod exists with its
// UID, bound and Running. However slow the machine, pods keep reaching
// Running: the wait fails only when that stops for waitfor.Stall.
func checkAcknowledged(t *testing.T, c kubernetes.Interface, acked map[string]types.UID, round int, p *process) {
	t.Helper()
	what := fmt.Sprintf("round %d: every acknowledged pod Running after the restart", round)
	waitfor.Progress(t, what, func(ctx context.Context) (bool, string, error) {
		list, err := c.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("round %d: list: %v\n%s", round, err, p.describe())
		}
		pods := map[string]*corev1.Pod{}
		for i := range list.Items {
			pods[list.Items[i].Name] = &list.Items[i]
		}
		var missing, notRunning []string
		for name, uid := range acked {
			pod := pods[name]
			switch {
			case pod == nil || pod.UID != uid:
				missing = append(missing, name)
			case pod.Status.Phase != corev1.PodRunning || pod.Spec.NodeName == "":
				notRunning = append(notRunning, fmt.Sprintf("%s (node %q, phase %s, rv %s)", name, pod.Spec.NodeName, pod.Status.Phase, pod.ResourceVersion))
			}
		}
		if len(missing) > 0 {
			sort.Strings(missing)
			t.Fatalf("round %d: acknowledged pods missing or with another UID after the restart: %v", round, missing)
		}
		sort.Strings(notRunning)
		return len(notRunning) == 0, fmt.Sprintf("%d of %d acknowledged pods not Running: %v\n%s", len(notRunning), len(acked), notRunning, p.describe()), nil
	}, waitfor.PollEvery(50*time.Millisecond))
}

// burst creates crashBurst pods with crashWorkers clients and kills p
// with SIGKILL once more than killAfter creates were acknowledged (at
// once for 0). It adds the acknowledged ones to acked and returns how
// many were acknowledged when the kill was sent and how many creates
// failed (cut short by the kill, or sent after it).
func burst(t *testing.T, c kubernetes.Interface, acked map[string]types.UID, round, killAfter int, p *process) (int, int) {
	t.Helper()
	var mu sync.Mutex // guards acked and the counts
	var once sync.Once
	ackedNow, failed, killedAfter := 0, 0, 0
	kill := func() { // with mu held
		once.Do(func() {
			_ = p.cmd.Process.Signal(syscall.SIGKILL)
			killedAfter = ackedNow
		})
	}
	names := make(chan string)
	var wg sync.WaitGroup
	for range crashWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				pod, err := c.CoreV1().Pods("default").Create(context.Background(), crashPod(name), metav1.CreateOptions{})
				mu.Lock()
				if err != nil {
					failed++
				} else {
					acked[name] = pod.UID
					ackedNow++
					if ackedNow > killAfter {
						kill()
					}
				}
				mu.Unlock()
			}
		}()
	}
	if killAfter == 0 {
		mu.Lock()
		kill()
		mu.Unlock()
	}
	for i := range crashBurst {
		names <- fmt.Sprintf("r%d-p%d", round, i)
	}
	close(names)
	wg.Wait()
	mu.Lock()
	kill() // all acknowledged before the kill point came: kill now
	mu.Unlock()
	p.wait(waitTimeout)
	return killedAfter, failed
}

func crashPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}},
	}
}

// bindingsFromHistory replays etcd's whole history of pods (the member
// started on the stopped cluster's data) and returns, per pod name, the
// successive non-empty values of spec.nodeName it took.
func bindingsFromHistory(t *testing.T, dir string) map[string][]string {
	t.Helper()
	s, err := embedetcd.Start(context.Background(), embedetcd.NewConfig(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A last write under the prefix marks where the history ends.
	const end = "/registry/pods/~end-of-history"
	if _, err := s.Client().Put(ctx, end, ""); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	last := map[string]string{}
	for resp := range s.Client().Watch(ctx, "/registry/pods/", clientv3.WithPrefix(), clientv3.WithRev(1)) {
		if err := resp.Err(); err != nil {
			t.Fatalf("replaying etcd's history: %v", err)
		}
		for _, ev := range resp.Events {
			if string(ev.Kv.Key) == end {
				return out
			}
			name := strings.TrimPrefix(string(ev.Kv.Key), "/registry/pods/default/")
			var pod corev1.Pod
			if ev.Type == clientv3.EventTypePut {
				if err := json.Unmarshal(ev.Kv.Value, &pod); err != nil {
					t.Fatalf("%s at revision %d: %v", ev.Kv.Key, ev.Kv.ModRevision, err)
				}
			}
			if node := pod.Spec.NodeName; node != last[name] {
				if node == "" && ev.Type == clientv3.EventTypePut {
					node = "(unset)"
				}
				if node != "" {
					out[name] = append(out[name], node)
				}
				last[name] = pod.Spec.NodeName
			}
		}
	}
	t.Fatal("etcd's history ended before its last write")
	return out
}
