package cluster_test

import (
	"context"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestMeasureSchedulerHandover measures, at leader election speed 1
// (upstream's 15 s Lease; set KUBESIM_MEASURE_HANDOVER_SPEED to change
// it), how long after the leading scheduler is killed (or, with
// KUBESIM_MEASURE_HANDOVER_GRACEFUL set, stopped) the next pod is bound, over KUBESIM_MEASURE_HANDOVER handovers (40 pods created during
// each), and counts the pods bound twice. It asserts what the other
// tests do (each pod bound once) and logs the figures; it runs only when
// KUBESIM_MEASURE_HANDOVER is set, for about 16 s a handover:
//
//	KUBESIM_MEASURE_HANDOVER=5 go test ./cluster -run TestMeasureSchedulerHandover -v
func TestMeasureSchedulerHandover(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("KUBESIM_MEASURE_HANDOVER"))
	if rounds <= 0 {
		t.Skip("set KUBESIM_MEASURE_HANDOVER=<handovers> to measure")
	}
	speed := 1.0
	if s, err := strconv.ParseFloat(os.Getenv("KUBESIM_MEASURE_HANDOVER_SPEED"), 64); err == nil {
		speed = s
	}
	graceful := os.Getenv("KUBESIM_MEASURE_HANDOVER_GRACEFUL") != ""
	c, admin := startHACluster(t, speed)
	nodes := watchNodeNames(t, admin)
	ids := startSchedulers(t, c, "sched-a", "sched-b")
	leader := waitLeader(t, c.SchedulerLeader, ids["sched-a"], ids["sched-b"])
	const perRound = 40
	var names []string
	var took []time.Duration
	for r := range rounds {
		dead, other := instanceOf(ids, leader), otherInstance(ids, leader)
		names = append(names, createPods(t, admin, "m", r*perRound, r*perRound+perRound/2)...)
		waitBound(t, admin, names)
		killed := time.Now()
		stop := c.KillSchedulerInstance
		if graceful {
			stop = c.StopSchedulerInstance
		}
		if err := stop(dead); err != nil {
			t.Fatal(err)
		}
		batch := createPods(t, admin, "m", r*perRound+perRound/2, (r+1)*perRound)
		names = append(names, batch...)
		first := waitFirstBound(t, admin, batch, killed.Add(time.Minute))
		took = append(took, first.Sub(killed))
		leader = waitLeader(t, c.SchedulerLeader, ids[other])
		// Restarted once the standby leads, it is the next standby.
		if err := c.StartSchedulerInstance(dead); err != nil {
			t.Fatal(err)
		}
		ids[dead] = mustIdentity(t, c.SchedulerIdentity, dead)
		t.Logf("handover %d: %s → %s; first pod bound %v after the kill", r+1, dead, instanceOf(ids, leader), first.Sub(killed).Round(10*time.Millisecond))
	}
	waitBound(t, admin, names)
	unanswered := checkBoundOnce(t, c.DataDir, nodes, names)
	slices.Sort(took)
	t.Logf("speed %v, graceful %v: %d handovers, kill → next binding: min %v, median %v, max %v; %d pods, %d bound twice, %d bound by a binding answered with an error",
		speed, graceful, rounds, took[0].Round(10*time.Millisecond), took[len(took)/2].Round(10*time.Millisecond), took[len(took)-1].Round(10*time.Millisecond),
		len(names), len(nodes.changed()), unanswered)
}

// waitFirstBound polls every 20 ms until one pod of names has a node
// and returns when it was seen so (to within the poll).
func waitFirstBound(t *testing.T, admin kubernetes.Interface, names []string, deadline time.Time) time.Time {
	t.Helper()
	for time.Now().Before(deadline) {
		pods, err := admin.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods.Items {
			if p.Spec.NodeName != "" && slices.Contains(names, p.Name) {
				return time.Now()
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("none of %d pods bound by %v", len(names), deadline)
	return time.Time{}
}
