package scheduler_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scheduler"
)

// TestEndToEndLead: with Config.Lead, Run hands Lead the scheduling loop: nothing is scheduled before Lead runs
// it, and once it does, the pods waiting meanwhile are bound, their
// stage-4 events naming Config.Identity.
func TestEndToEndLead(t *testing.T) {
	t.Parallel()
	called := make(chan struct{}, 1)
	lead := make(chan struct{})
	e := startE2EWith(t, func(cfg *scheduler.Config) {
		cfg.Identity = "sched-x_1"
		cfg.Lead = func(ctx context.Context, schedule func(context.Context)) error {
			called <- struct{}{}
			select {
			case <-lead:
			case <-ctx.Done():
				return nil
			}
			schedule(ctx)
			return nil
		}
	}, node("node-1", "4", "8Gi"))
	select {
	case <-called:
	case <-time.After(waitTimeout):
		t.Fatal("Lead not called")
	}
	e.createPod(t, pod("waiting", "100m", "128Mi"))
	// The pod was created before Lead let the loop run: still unbound.
	if p, err := e.admin.CoreV1().Pods("default").Get(context.Background(), "waiting", metav1.GetOptions{}); err != nil || p.Spec.NodeName != "" {
		t.Fatalf("pod before Lead schedules: node %q (%v), want none", p.Spec.NodeName, err)
	}
	close(lead)
	if got := e.waitBound(t, "waiting"); got != "node-1" {
		t.Errorf("bound to %q, want node-1", got)
	}
	ev := e.nextFlow(t, "waiting")
	if ev.Stage != flow.StageScheduled || ev.Instance != "sched-x_1" {
		t.Errorf("flow event: stage %v, instance %q; want stage %v by sched-x_1", ev.Stage, ev.Instance, flow.StageScheduled)
	}
}
