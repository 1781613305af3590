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
	podPhaseKeys = []string{"pod", "namespace", "phase"}
	podPhases    = []string{"Pending", "Running", "Succeeded", "Failed", "Unknown"}
)

func (e *PodPhaseExpectation) Kind() string { return "podPhase" }
func (e *PodPhaseExpectation) String() string {
	return fmt.Sprintf("podPhase %s for %s", e.Phase, nsName(e.Namespace, e.Pod))
}

// parsePodPhase reads {pod, namespace, phase}.
func parsePodPhase(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, podPhaseKeys)
	if err != nil {
		return nil, err
	}
	e := &PodPhaseExpectation{}
	if e.Pod, e.Namespace, err = l.pod(n, fields, key); err != nil {
		return nil, err
	}
	pf, ok := fields["phase"]
	if !ok {
		return nil, l.errAt(n, "podPhase: missing field \"phase\"")
	}
	if e.Phase, err = l.oneOf(pf.val, "podPhase.phase", podPhases); err != nil {
		return nil, err
	}
	return e, nil
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
