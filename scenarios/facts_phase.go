package scenarios

import (
	"context"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// phaseValues are the values of the podPhase fact: the pod phases of
// core/v1, and none for a pod the API no longer has. What kubectl get
// pods prints in STATUS (CrashLoopBackOff, Terminating) is not among
// them: it is not a phase.
var phaseValues = []string{"Pending", "Running", "Succeeded", "Failed", "Unknown", "none"}

// podPhaseFact is the pod's status.phase, read from the API after the
// step; "none" when there is no such pod.
type podPhaseFact struct{ podFact }

func parsePodPhaseFact(d *questionDoc, n *yaml.Node) (fact, error) {
	pf, err := d.podFact(n)
	return podPhaseFact{pf}, err
}

func (f podPhaseFact) about() flow.Text {
	return flow.Text{En: "phase of " + f.String(), Zh: f.String() + " 的 phase"}
}

func (f podPhaseFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	_, changed := p.snapshot()
	pod, err := p.admin.CoreV1().Pods(f.Namespace).Get(ctx, f.Pod, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "none", true, nil
	}
	if err != nil {
		return err.Error(), false, changed
	}
	if pod.Status.Phase == "" {
		return "a pod with no phase yet", false, changed
	}
	return string(pod.Status.Phase), true, nil
}
