package cluster_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestSchedulerInstancesOneLeads: of two scheduler instances, one holds
// the Lease kube-system/kube-scheduler and binds every pod; the other,
// its informers as warm, binds none.
func TestSchedulerInstancesOneLeads(t *testing.T) {
	t.Parallel()
	c, admin := startHACluster(t, haSpeed)
	attempts := watchFlow(t, c.Recorder, stage4)
	for _, n := range []string{"sched-a", "sched-b"} {
		if err := c.StartSchedulerInstance(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.StartSchedulerInstance("sched-a"); err == nil {
		t.Error("StartSchedulerInstance(sched-a) while it runs: got no error")
	}
	a, b := mustIdentity(t, c.SchedulerIdentity, "sched-a"), mustIdentity(t, c.SchedulerIdentity, "sched-b")
	if !strings.HasPrefix(a, "sched-a_") || a == b {
		t.Errorf("identities %q and %q: want sched-a_<uuid> and sched-b_<uuid>", a, b)
	}
	leader := waitLeader(t, c.SchedulerLeader, a, b)

	names := createPods(t, admin, "one-leads", 0, 20)
	waitBound(t, admin, names)
	for _, n := range names {
		got := attempts.of(n)
		if len(got) != 1 || got[0] != leader {
			t.Errorf("pod %s: stage-4 events by %q, want one by the leader %q", n, got, leader)
		}
	}
	if h, err := c.SchedulerLeader(context.Background()); err != nil || h != leader {
		t.Errorf("Lease holder after the pods: %q (%v), want %q still", h, err, leader)
	}
	// client-go's lock records the takeover on the Lease, as upstream's.
	waitLeaseEvent(t, admin, cluster.SchedulerLease, leader+" became leader")
}

// waitLeaseEvent waits for a LeaderElection event about the Lease
// kube-system/lease with message.
func waitLeaseEvent(t *testing.T, admin kubernetes.Interface, lease, message string) {
	t.Helper()
	eventually(t, fmt.Sprintf("the event %q on Lease %s", message, lease), func() (bool, string) {
		evs, err := admin.CoreV1().Events("kube-system").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Kind == "Lease" && e.InvolvedObject.Name == lease && e.Reason == "LeaderElection" {
				if e.Message == message {
					return true, ""
				}
				seen = append(seen, e.Message)
			}
		}
		return false, fmt.Sprintf("LeaderElection events: %q", seen)
	})
}

// TestSchedulerKilledLeaderHandsOver: a leader killed (no release) keeps
// its Lease until it expires; then the other instance takes it and binds
// the pods created meanwhile and after.
func TestSchedulerKilledLeaderHandsOver(t *testing.T) {
	t.Parallel()
	c, admin := startHACluster(t, haSpeed)
	attempts := watchFlow(t, c.Recorder, stage4)
	ids := startSchedulers(t, c, "sched-a", "sched-b")
	leader := waitLeader(t, c.SchedulerLeader, ids["sched-a"], ids["sched-b"])
	waitBound(t, admin, createPods(t, admin, "before", 0, 5))

	dead, other := instanceOf(ids, leader), otherInstance(ids, leader)
	if err := c.KillSchedulerInstance(dead); err != nil {
		t.Fatal(err)
	}
	// A crash gives nothing up: the Lease still names the dead leader.
	if h, err := c.SchedulerLeader(context.Background()); err != nil || h != leader {
		t.Errorf("Lease holder right after the kill: %q (%v), want the killed leader %q", h, err, leader)
	}
	during := createPods(t, admin, "during", 0, 5)
	waitLeader(t, c.SchedulerLeader, ids[other])
	after := createPods(t, admin, "after", 0, 5)
	waitBound(t, admin, append(during, after...))
	for _, n := range append(during, after...) {
		if got := attempts.of(n); len(got) != 1 || got[0] != ids[other] {
			t.Errorf("pod %s: stage-4 events by %q, want one by the new leader %q", n, got, ids[other])
		}
	}
}

// TestSchedulerGracefulStopReleases: kube-scheduler releases its Lease
// when stopped (ReleaseOnCancel): once StopSchedulerInstance returns, the
// Lease no longer names it, and the standby takes over without waiting
// for it to expire.
func TestSchedulerGracefulStopReleases(t *testing.T) {
	t.Parallel()
	c, admin := startHACluster(t, 3) // a Lease of 5 s
	ids := startSchedulers(t, c, "sched-a", "sched-b")
	leader := waitLeader(t, c.SchedulerLeader, ids["sched-a"], ids["sched-b"])
	stopped, other := instanceOf(ids, leader), otherInstance(ids, leader)
	if err := c.StopSchedulerInstance(stopped); err != nil {
		t.Fatal(err)
	}
	h, err := c.SchedulerLeader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if h != "" && h != ids[other] {
		t.Errorf("Lease holder right after the graceful stop: %q, want none (released) or the standby %q", h, ids[other])
	}
	lease, err := admin.CoordinationV1().Leases("kube-system").Get(context.Background(), cluster.SchedulerLease, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h == "" && ptr.Deref(lease.Spec.LeaseDurationSeconds, 0) != 1 {
		t.Errorf("released Lease: leaseDurationSeconds %v, want 1 (client-go's release)", lease.Spec.LeaseDurationSeconds)
	}
	waitLeader(t, c.SchedulerLeader, ids[other])
	waitBound(t, admin, createPods(t, admin, "after-stop", 0, 5))
	if err := c.StopSchedulerInstance(stopped); err == nil {
		t.Error("StopSchedulerInstance of a stopped instance: got no error")
	}
}

// TestSchedulerHandoversBindEachPodOnce creates 200 pods while the
// leading scheduler is killed and restarted again and again: each pod is
// bound, its spec.nodeName set once and never changed, and no pod got two
// accepted bindings (checkBoundOnce).
func TestSchedulerHandoversBindEachPodOnce(t *testing.T) {
	t.Parallel()
	c, admin := startHACluster(t, haSpeed)
	nodes := watchNodeNames(t, admin)
	ids := startSchedulers(t, c, "sched-a", "sched-b")
	leader := waitLeader(t, c.SchedulerLeader, ids["sched-a"], ids["sched-b"])
	var names []string
	const rounds, perRound = 5, 40
	handovers := 0
	for r := range rounds {
		dead, other := instanceOf(ids, leader), otherInstance(ids, leader)
		// Half the round's pods while the leader runs, half once it is
		// dead and before the standby has taken over.
		names = append(names, createPods(t, admin, "ha", r*perRound, r*perRound+perRound/2)...)
		if err := c.KillSchedulerInstance(dead); err != nil {
			t.Fatal(err)
		}
		names = append(names, createPods(t, admin, "ha", r*perRound+perRound/2, (r+1)*perRound)...)
		if err := c.StartSchedulerInstance(dead); err != nil { // restarted, with a new identity
			t.Fatal(err)
		}
		ids[dead] = mustIdentity(t, c.SchedulerIdentity, dead)
		// The standby and the restarted instance race for the expired
		// Lease: either may win.
		leader = waitLeader(t, c.SchedulerLeader, ids[other], ids[dead])
		handovers++
	}
	t.Logf("%d pods, %d handovers", len(names), handovers)
	waitBound(t, admin, names)
	unanswered := checkBoundOnce(t, c.DataDir, nodes, names)
	t.Logf("%d pods bound by a binding its killed scheduler got no success for", unanswered)
}

// TestControllerManagerInstancesOneLeads: of two controller managers, the
// one that holds kube-system/kube-controller-manager reconciles a
// Deployment alone; killed, it hands over to the other, which reconciles
// the next change.
func TestControllerManagerInstancesOneLeads(t *testing.T) {
	t.Parallel()
	c, admin := startHACluster(t, haSpeed)
	actions := watchFlow(t, c.Recorder, func(ev flow.Event) bool { return ev.Controller != nil })
	ids := map[string]string{}
	for _, n := range []string{"kcm-a", "kcm-b"} {
		if err := c.StartControllerManagerInstance(n); err != nil {
			t.Fatal(err)
		}
		ids[n] = mustIdentity(t, c.ControllerManagerIdentity, n)
	}
	leader := waitLeader(t, c.ControllerManagerLeader, ids["kcm-a"], ids["kcm-b"])
	createDeployment(t, admin, "web", 2)
	waitReplicaPods(t, admin, "web", 2)
	checkActedBy(t, actions, "web", leader)

	dead, other := instanceOf(ids, leader), otherInstance(ids, leader)
	if err := c.KillControllerManagerInstance(dead); err != nil {
		t.Fatal(err)
	}
	waitLeader(t, c.ControllerManagerLeader, ids[other])
	createDeployment(t, admin, "api", 1)
	waitReplicaPods(t, admin, "api", 1)
	checkActedBy(t, actions, "api", ids[other])
	waitLeaseEvent(t, admin, cluster.ControllerManagerLease, ids[other]+" became leader")
}

// startSchedulers starts scheduler instances and returns their
// identities by name.
func startSchedulers(t *testing.T, c *cluster.Cluster, names ...string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for _, n := range names {
		if err := c.StartSchedulerInstance(n); err != nil {
			t.Fatal(err)
		}
		ids[n] = mustIdentity(t, c.SchedulerIdentity, n)
	}
	return ids
}

// instanceOf returns the name whose identity is id; otherInstance the
// other one of two.
func instanceOf(ids map[string]string, id string) string {
	for n, i := range ids {
		if i == id {
			return n
		}
	}
	return ""
}

func otherInstance(ids map[string]string, id string) string {
	for n, i := range ids {
		if i != id {
			return n
		}
	}
	return ""
}

func createDeployment(t *testing.T, admin kubernetes.Interface, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := admin.AppsV1().Deployments("default").Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create deployment %s: %v", name, err)
	}
}

// waitReplicaPods waits until the pods labelled app=name number n.
func waitReplicaPods(t *testing.T, admin kubernetes.Interface, name string, n int) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d pods of deployment %s", n, name), func() (bool, string) {
		pods, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{LabelSelector: "app=" + name})
		if err != nil {
			return false, err.Error()
		}
		return len(pods.Items) == n, fmt.Sprintf("%d pods", len(pods.Items))
	})
}

// checkActedBy fails the test unless the deployment controller's actions
// on the Deployment name came from instance id alone.
func checkActedBy(t *testing.T, actions *flowInstances, name, id string) {
	t.Helper()
	// The deployment controller reports its sync when it ends, which may
	// be after the ReplicaSet's pods exist.
	eventually(t, "an action on deployment "+name, func() (bool, string) { return len(actions.of(name)) > 0, "none" })
	got := actions.of(name)
	if i := slices.IndexFunc(got, func(s string) bool { return s != id }); i >= 0 {
		t.Errorf("deployment %s: actions by %q, want all by the leader %q", name, got, id)
	}
}

// TestRestartReleasesStaleLeases: a cluster started again on the data dir
// of one whose scheduler and controller manager were killed (their
// Leases held by identities of a process that is gone) releases those
// Leases before its first instances campaign, so that they lead at once
// instead of 15 s later (kubesim's difference from upstream: the data
// dir's lock proves the holders dead).
func TestRestartReleasesStaleLeases(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	configure := func(cfg *cluster.Config) {
		cfg.DataDir = dir
		cfg.Scheduler, cfg.ControllerManager = false, false
		cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
	}
	first := clustertest.Start(t, configure)
	if err := first.StartScheduler(); err != nil {
		t.Fatal(err)
	}
	if err := first.StartControllerManager(); err != nil {
		t.Fatal(err)
	}
	oldSched := waitLeader(t, first.SchedulerLeader, mustIdentity(t, first.SchedulerIdentity, cluster.DefaultSchedulerInstance))
	oldKCM := waitLeader(t, first.ControllerManagerLeader, mustIdentity(t, first.ControllerManagerIdentity, cluster.DefaultControllerManagerInstance))
	if err := first.KillSchedulerInstance(cluster.DefaultSchedulerInstance); err != nil {
		t.Fatal(err)
	}
	if err := first.KillControllerManagerInstance(cluster.DefaultControllerManagerInstance); err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}

	second := clustertest.Start(t, configure) // leader election at upstream's 15 s
	for _, tt := range []struct {
		lease, old string
		start      func() error
		leader     func(context.Context) (string, error)
		identity   func(string) (string, bool)
		name       string
	}{
		{cluster.SchedulerLease, oldSched, second.StartScheduler, second.SchedulerLeader, second.SchedulerIdentity, cluster.DefaultSchedulerInstance},
		{cluster.ControllerManagerLease, oldKCM, second.StartControllerManager, second.ControllerManagerLeader, second.ControllerManagerIdentity, cluster.DefaultControllerManagerInstance},
	} {
		if err := tt.start(); err != nil {
			t.Fatal(err)
		}
		if h, err := tt.leader(context.Background()); err != nil || h == tt.old {
			t.Errorf("Lease %s right after the first start: holder %q (%v), want the dead %q's released", tt.lease, h, err, tt.old)
		}
		waitLeader(t, tt.leader, mustIdentity(t, tt.identity, tt.name))
	}
}
