package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PodPhaseExpectation: the pod's status.phase is Phase.
type PodPhaseExpectation struct{ Pod, Namespace, Phase string }

var _ prober = (*PodPhaseExpectation)(nil)

// The fields of podPhase, and the phases.
var (
	podPhases = []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"}
)

func (e *PodPhaseExpectation) Kind() string { return "podPhase" }
func (e *PodPhaseExpectation) String() string {
	return fmt.Sprintf("podPhase %s for %s", e.Phase, nsName(e.Namespace, e.Pod))
}

// parsePodPhase reads {pod, namespace, phase}.
func parsePodPhase(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[podPhaseDoc](n)
	if err != nil {
		return nil, err
	}
	e := &PodPhaseExpectation{Phase: string(d.Phase)}
	if err := oneOf(valueOf(n, "phase"), e.Phase, podPhases); err != nil {
		return nil, err
	}
	e.Pod, e.Namespace = d.ref()
	return e, nil
}

// podPhaseDoc is podPhase as written.
type podPhaseDoc struct {
	podDoc `yaml:",inline"`
	Phase  str `yaml:"phase" load:"required"`
}

// probe reads the pod from the API.
func (e *PodPhaseExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	pod, err := p.admin.CoreV1().Pods(e.Namespace).Get(ctx, e.Pod, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	if string(pod.Status.Phase) == e.Phase {
		return "", true, nil
	}
	if pod.Status.Phase == "" {
		return "no phase", false, nil
	}
	return string(pod.Status.Phase), false, nil
}
