package cluster

import (
	"context"
	"errors"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// TestLosingTheLeaseEnds cuts the leading scheduler's (controller
// manager's) lock off from the API server while the instance keeps
// running: its renewals fail for RenewDeadline, it stops leading and ends
// with errLeaseLost (where kube-scheduler's process exits), it is started
// again with a new identity (where the kubelet restarts the static pod),
// and the other instance takes the Lease once it has expired and does
// the next piece of work.
func TestLosingTheLeaseEnds(t *testing.T) {
	t.Parallel()
	cfg := NewConfig()
	cfg.Port, cfg.DataDir, cfg.UnsafeNoFsync, cfg.Speed = 0, t.TempDir(), true, 0
	cfg.Scheduler, cfg.ControllerManager = false, false
	cfg.DisableAdmissionPlugins = []string{admission.ServiceAccountName}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	c, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetLeaderElectionSpeed(7.5)
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range lostLeaseCases(ctx, c, admin) {
		t.Run(tt.kind.String(), func(t *testing.T) {
			for _, n := range []string{"a", "b"} {
				if err := tt.start(n); err != nil {
					t.Fatal(err)
				}
			}
			c.compMu.Lock()
			instances := map[string]*electedInstance{}
			for _, inst := range c.elected.of(tt.kind) {
				instances[inst.identity] = inst
			}
			c.compMu.Unlock()
			var leader string
			pollUntil(ctx, t, "a leader", func() bool {
				leader, _ = tt.leader(ctx)
				return instances[leader] != nil
			})
			lost := instances[leader]
			lost.lock.dead.Store(true) // a partition: the instance runs on, its lock reaches nothing
			<-lost.comp.done
			if !errors.Is(lost.comp.err, errLeaseLost) {
				t.Errorf("the cut-off leader ended with %v, want %v", lost.comp.err, errLeaseLost)
			}
			pollUntil(ctx, t, lost.name+" started again with a new identity", func() bool {
				c.compMu.Lock()
				again := c.elected.of(tt.kind)[lost.name]
				c.compMu.Unlock()
				return again != nil && again != lost && again.identity != lost.identity && slices.Contains(tt.names(), lost.name)
			})
			pollUntil(ctx, t, "the other instance to lead", func() bool {
				h, _ := tt.leader(ctx)
				return h != leader && instances[h] != nil
			})
			if !tt.work("after") {
				t.Fatal("making the work failed")
			}
			pollUntil(ctx, t, "the work done", func() bool { return tt.done("after") })
			if err := lost.stop(true); err != nil {
				t.Errorf("stopping the instance that lost its Lease: %v, want nil (it had ended)", err)
			}
		})
	}
}

// lostLeaseCase is one component of TestLosingTheLeaseEnds.
type lostLeaseCase struct {
	kind   instanceKind
	start  func(string) error
	names  func() []string
	leader func(context.Context) (string, error)
	// work makes the next piece of work, named; done reports it done.
	work, done func(name string) bool
}

// lostLeaseCases are the scheduler's and the controller manager's.
func lostLeaseCases(ctx context.Context, c *Cluster, admin kubernetes.Interface) []lostLeaseCase {
	return []lostLeaseCase{
		{schedulerInstances, c.StartSchedulerInstance, c.SchedulerInstances, c.SchedulerLeader,
			func(name string) bool {
				_, err := admin.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}}, metav1.CreateOptions{})
				return err == nil
			},
			func(name string) bool {
				p, err := admin.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
				return err == nil && p.Spec.NodeName != ""
			}},
		{controllerManagerInstances, c.StartControllerManagerInstance, c.ControllerManagerInstances, c.ControllerManagerLeader,
			func(name string) bool {
				labels := map[string]string{"app": name}
				_, err := admin.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: corev1.PodTemplateSpec{
						ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx:1.27"}}}}}}, metav1.CreateOptions{})
				return err == nil
			},
			func(name string) bool { // the deployment controller made its ReplicaSet
				rs, err := admin.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + name})
				return err == nil && len(rs.Items) == 1
			}},
	}
}
