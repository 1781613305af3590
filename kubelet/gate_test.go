package kubelet_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/kubelet"
)

// flowLog collects a subscription's events; only the test's goroutine
// uses it.
type flowLog struct {
	sub    *flow.Subscription
	events []flow.Event
}

func newFlowLog(tb testing.TB, rec *flow.Recorder) *flowLog {
	tb.Helper()
	l := &flowLog{sub: rec.Subscribe(0)}
	tb.Cleanup(func() {
		if n := l.sub.Dropped(); n > 0 {
			tb.Errorf("the flow subscription dropped %d events", n)
		}
		l.sub.Close()
	})
	return l
}

// read takes in the events recorded so far and returns them all.
func (l *flowLog) read() []flow.Event {
	for {
		select {
		case ev := <-l.sub.Events():
			l.events = append(l.events, ev)
		default:
			return l.events
		}
	}
}

// kubeletStages lists the kubelet's events about pod uid as
// "<stage> <what>": "6 pull", "0 exit", "7 status Running".
func kubeletStages(events []flow.Event, uid types.UID) []string {
	var out []string
	for _, ev := range events {
		if ev.Object.UID != uid || !strings.HasPrefix(ev.Component, "kubelet/") {
			continue
		}
		switch {
		case ev.Runtime != nil:
			out = append(out, fmt.Sprintf("%d %s", ev.Stage, ev.Runtime.Action))
		case ev.Status != nil:
			out = append(out, fmt.Sprintf("%d status %s", ev.Stage, ev.Status.Phase))
		default:
			out = append(out, fmt.Sprintf("%d ?%s", ev.Stage, ev.Summary))
		}
	}
	return out
}

// staged keeps the entries with a stage other than 0.
func staged(list []string) []string {
	var out []string
	for _, s := range list {
		if !strings.HasPrefix(s, "0 ") {
			out = append(out, s)
		}
	}
	return out
}

// waitHeld waits until gate holds the pod named pod at point.
func waitHeld(tb testing.TB, gate *flow.Gate, point flow.Point, pod string) flow.Boundary {
	tb.Helper()
	var found flow.Boundary
	waitFor(tb, fmt.Sprintf("%s held at %s", pod, point), func() (bool, error) {
		for _, b := range gate.Held() {
			if b.Point == point && b.Object.Name == pod {
				found = b
				return true, nil
			}
		}
		return false, nil
	})
	return found
}

// startGatedKubelet runs a kubelet for node with a gate in mode,
// recording to the kubelet's recorder.
func startGatedKubelet(tb testing.TB, c *cluster.Cluster, node string, mode flow.Mode, change func(*kubelet.Config)) (*runningKubelet, *flow.Gate) {
	tb.Helper()
	var gate *flow.Gate
	k := startKubelet(tb, c, node, func(cfg *kubelet.Config) {
		gate = flow.NewGate(mode, 0, cfg.Recorder)
		cfg.Gate = gate
		if change != nil {
			change(cfg)
		}
	})
	return k, gate
}

func getPod(tb testing.TB, admin kubernetes.Interface, name string) *corev1.Pod {
	tb.Helper()
	p, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		tb.Fatalf("get pod %s: %v", name, err)
	}
	return p
}

func leaseRenewed(tb testing.TB, admin kubernetes.Interface, node string) {
	tb.Helper()
	ctx := context.Background()
	var first *metav1.MicroTime
	waitFor(tb, "the lease of "+node, func() (bool, error) {
		l, err := admin.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
		if err != nil || l.Spec.RenewTime == nil {
			return false, err
		}
		first = l.Spec.RenewTime
		return true, nil
	})
	waitFor(tb, "the lease of "+node+" renewed", func() (bool, error) {
		l, err := admin.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
		return err == nil && l.Spec.RenewTime != nil && l.Spec.RenewTime.After(first.Time), err
	})
}

func TestKubeletStepGate(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	c := mustStartCluster(t)
	admin := adminClient(t, c)

	t.Run("held before containers, then before the status report", func(t *testing.T) {
		t.Parallel()
		k, gate := startGatedKubelet(t, c, "node-step", flow.ModeStep, func(cfg *kubelet.Config) { cfg.PodCIDR = "10.244.21.0/24" })
		log := newFlowLog(t, k.cfg.Recorder)
		pod := createBoundPod(t, admin, nginxPod("stepper", nil), "node-step")

		// Held before containers: Pending, no sandbox, no container, no
		// runtime action; the lease is renewed all the same.
		b := waitHeld(t, gate, flow.PointBeforeContainers, "stepper")
		if want := (flow.Boundary{Point: flow.PointBeforeContainers, Component: "kubelet/node-step",
			Object: flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "stepper", UID: pod.UID}}); b != want {
			t.Errorf("held %+v, want %+v", b, want)
		}
		leaseRenewed(t, admin, "node-step")
		p := getPod(t, admin, "stepper")
		if p.Status.Phase != corev1.PodPending || p.Status.PodIP != "" {
			t.Errorf("held before containers: phase %q podIP %q, want Pending and no IP", p.Status.Phase, p.Status.PodIP)
		}
		for _, cs := range p.Status.ContainerStatuses {
			if cs.ContainerID != "" {
				t.Errorf("held before containers: container %s has ID %s", cs.Name, cs.ContainerID)
			}
		}
		if got, want := kubeletStages(log.read(), pod.UID), []string{"0 status Pending"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("kubelet events held before containers: %q, want %q", got, want)
		}

		// Advance: the containers run; held before the status report,
		// the API still says Pending.
		if n := gate.Advance(); n != 1 {
			t.Errorf("Advance let %d boundaries go, want 1", n)
		}
		waitHeld(t, gate, flow.PointBeforeStatusReport, "stepper")
		if p := getPod(t, admin, "stepper"); p.Status.Phase != corev1.PodPending {
			t.Errorf("held before the status report: phase %q, want Pending", p.Status.Phase)
		}
		got := kubeletStages(log.read(), pod.UID)
		if want := []string{"6 pull", "6 create", "6 start"}; strings.Join(staged(got), ",") != strings.Join(want, ",") {
			t.Errorf("staged kubelet events held before the status report: %q (all: %q), want %q", staged(got), got, want)
		}
		leaseRenewed(t, admin, "node-step")

		// Advance: Running, reported with stage 7.
		gate.Advance()
		waitFor(t, "stepper Running", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(context.Background(), "stepper", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		})
		waitFor(t, "the stage-7 report", func() (bool, error) {
			return strings.Contains(strings.Join(kubeletStages(log.read(), pod.UID), ","), "7 status Running"), nil
		})
		got = kubeletStages(log.read(), pod.UID)
		if want := []string{"6 pull", "6 create", "6 start", "7 status Running"}; strings.Join(staged(got), ",") != strings.Join(want, ",") {
			t.Errorf("staged kubelet events: %q (all: %q), want %q", staged(got), got, want)
		}
		if held := gate.Held(); len(held) != 0 {
			t.Errorf("still held: %v", held)
		}
		holds := map[flow.Point]int{}
		for _, ev := range log.read() {
			if ev.Hold != nil && !ev.Hold.Released && ev.Object.UID == pod.UID {
				holds[ev.Hold.Boundary.Point]++
			}
		}
		if want := map[flow.Point]int{flow.PointBeforeContainers: 1, flow.PointBeforeStatusReport: 1}; fmt.Sprint(holds) != fmt.Sprint(want) {
			t.Errorf("holds %v, want %v", holds, want)
		}
	})

	t.Run("held pods do not hold up the others until the gate says", func(t *testing.T) {
		t.Parallel()
		_, gate := startGatedKubelet(t, c, "node-two", flow.ModeStep, func(cfg *kubelet.Config) { cfg.PodCIDR = "10.244.22.0/24" })
		createBoundPod(t, admin, nginxPod("first", nil), "node-two")
		waitHeld(t, gate, flow.PointBeforeContainers, "first")
		createBoundPod(t, admin, nginxPod("second", nil), "node-two")
		waitHeld(t, gate, flow.PointBeforeContainers, "second")
		gate.Advance()
		waitHeld(t, gate, flow.PointBeforeStatusReport, "first")
		waitHeld(t, gate, flow.PointBeforeStatusReport, "second")
		gate.Advance()
		for _, name := range []string{"first", "second"} {
			waitFor(t, name+" Running", func() (bool, error) {
				p, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
				return err == nil && p.Status.Phase == corev1.PodRunning, err
			})
		}
	})

	t.Run("deleting a held pod ends the hold", func(t *testing.T) {
		t.Parallel()
		for _, point := range []flow.Point{flow.PointBeforeContainers, flow.PointBeforeStatusReport} {
			t.Run(string(point), func(t *testing.T) {
				node := "node-del-" + strings.TrimPrefix(string(point), "before-")
				cidr := "10.244.23.0/24"
				if point == flow.PointBeforeStatusReport {
					cidr = "10.244.24.0/24"
				}
				_, gate := startGatedKubelet(t, c, node, flow.ModeStep, func(cfg *kubelet.Config) { cfg.PodCIDR = cidr })
				name := "doomed-" + strings.TrimPrefix(string(point), "before-")
				createBoundPod(t, admin, nginxPod(name, nil), node)
				waitHeld(t, gate, flow.PointBeforeContainers, name)
				if point == flow.PointBeforeStatusReport {
					gate.Advance()
					waitHeld(t, gate, point, name)
				}
				if err := admin.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
					t.Fatalf("delete: %v", err)
				}
				waitFor(t, name+" gone", func() (bool, error) {
					_, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
					return err != nil, nil
				})
				if held := gate.Held(); len(held) != 0 {
					t.Errorf("held after the pod was deleted: %v", held)
				}
			})
		}
	})

	t.Run("a restarted kubelet holds only where the pod has not been", func(t *testing.T) {
		t.Parallel()
		first, gate := startGatedKubelet(t, c, "node-again", flow.ModeStep, func(cfg *kubelet.Config) { cfg.PodCIDR = "10.244.25.0/24" })
		pod := createBoundPod(t, admin, nginxPod("again", nil), "node-again")
		waitHeld(t, gate, flow.PointBeforeContainers, "again")
		gate.Advance()
		waitHeld(t, gate, flow.PointBeforeStatusReport, "again")
		first.stop(t)
		if held := gate.Held(); len(held) != 0 {
			t.Errorf("held after the kubelet stopped: %v", held)
		}
		if p := getPod(t, admin, "again"); p.Status.Phase != corev1.PodPending {
			t.Errorf("after a stop held before the status report: phase %q, want Pending", p.Status.Phase)
		}

		// The stopped kubelet's one status said Pending, before the
		// sandbox: one status per sync, and the sync that made the
		// sandbox and started the container was held before its report.
		// The new kubelet, with the same gate, finds nothing in the
		// status that shows the pod past a hold: it holds it before
		// containers, starts the container (the first start still:
		// stage 6), holds it before the status report, then reports
		// stage 7.
		if p := getPod(t, admin, "again"); p.Status.PodIP != "" {
			t.Errorf("after a stop held before the status report: podIP %q, want none (no status sent since the sandbox)", p.Status.PodIP)
		}
		second := startKubelet(t, c, "node-again", func(cfg *kubelet.Config) {
			cfg.PodCIDR = "10.244.25.0/24"
			cfg.Gate = gate
		})
		log := newFlowLog(t, second.cfg.Recorder)
		waitHeld(t, gate, flow.PointBeforeContainers, "again")
		gate.Advance()
		waitHeld(t, gate, flow.PointBeforeStatusReport, "again")
		gate.Advance()
		waitFor(t, "again Running", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(context.Background(), "again", metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		})
		waitFor(t, "the stage-7 report", func() (bool, error) {
			return contains(kubeletStages(log.read(), pod.UID), "7 status Running"), nil
		})
		if got, want := staged(kubeletStages(log.read(), pod.UID)), []string{"6 pull", "6 create", "6 start", "7 status Running"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("staged events of the new kubelet: %q, want %q", got, want)
		}

		// A third kubelet finds the pod Running: no hold at all.
		second.stop(t)
		third := startKubelet(t, c, "node-again", func(cfg *kubelet.Config) {
			cfg.PodCIDR = "10.244.25.0/24"
			cfg.Gate = gate
		})
		log = newFlowLog(t, third.cfg.Recorder)
		createBoundPod(t, admin, nginxPod("later", nil), "node-again")
		waitHeld(t, gate, flow.PointBeforeContainers, "later") // the third kubelet is at work
		for _, b := range gate.Held() {
			if b.Object.UID == pod.UID {
				t.Errorf("the running pod is held again: %v", b)
			}
		}
		if got := kubeletStages(log.read(), pod.UID); len(staged(got)) != 0 {
			t.Errorf("the third kubelet recorded %q for the running pod, want no stage", got)
		}
		gate.SetMode(flow.ModeOff)
	})

	t.Run("stages once in order; restarts have stage 0", func(t *testing.T) {
		t.Parallel()
		for _, mode := range []flow.Mode{flow.ModeOff, flow.ModeStep} {
			t.Run(mode.String(), func(t *testing.T) {
				node := "node-crash-" + mode.String()
				cidr := "10.244.26.0/24"
				if mode == flow.ModeStep {
					cidr = "10.244.27.0/24"
				}
				k, gate := startGatedKubelet(t, c, node, mode, func(cfg *kubelet.Config) {
					cfg.PodCIDR = cidr
					cfg.Speed = 100
				})
				if mode == flow.ModeStep {
					advanceAll(t, gate)
				}
				log := newFlowLog(t, k.cfg.Recorder)
				name := "crasher-" + mode.String()
				pod := createBoundPod(t, admin, nginxPod(name, map[string]string{kubelet.AnnotationExitAfter: "1s", kubelet.AnnotationExitCode: "1"}), node)
				waitFor(t, name+" restarted twice", func() (bool, error) {
					p, err := admin.CoreV1().Pods("default").Get(context.Background(), name, metav1.GetOptions{})
					return err == nil && len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].RestartCount >= 2, err
				})
				// The restart's start action is recorded just before the
				// status that counts it is written.
				waitFor(t, "two restarts in the flow", func() (bool, error) {
					n := 0
					for _, s := range kubeletStages(log.read(), pod.UID) {
						if strings.HasSuffix(s, " create") {
							n++
						}
					}
					return n >= 3, nil
				})
				got := kubeletStages(log.read(), pod.UID)
				if want := []string{"6 pull", "6 create", "6 start", "7 status Running"}; strings.Join(staged(got), ",") != strings.Join(want, ",") {
					t.Errorf("staged kubelet events %q, want %q (all: %q)", staged(got), want, got)
				}
				// After the stage-7 report: exits, back-offs and restarts,
				// all with stage 0, and at least one of each.
				var after []string
				for i, s := range got {
					if s == "7 status Running" {
						after = got[i+1:]
					}
				}
				for _, want := range []string{"0 exit", "0 create", "0 start"} {
					if !contains(after, want) {
						t.Errorf("after the stage-7 report: %q, want a %q", after, want)
					}
				}
			})
		}
	})
}

// advanceAll lets every boundary the gate holds go, until the test ends.
func advanceAll(tb testing.TB, gate *flow.Gate) {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			if _, err := gate.WaitHeld(ctx); err != nil {
				return
			}
			gate.Advance()
		}
	})
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}
