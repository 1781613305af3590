package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ContainerStateExpectation: a container of the pod (Container, or any)
// is in a state with Reason (a waiting or terminated reason, or one of
// Running, Waiting, Terminated) and has restarted at least RestartsAtLeast
// times.
type ContainerStateExpectation struct {
	Pod, Namespace, Container string
	Reason                    string
	RestartsAtLeast           int32
}

var _ prober = (*ContainerStateExpectation)(nil)

// containerStateDoc is containerState as written.
type containerStateDoc struct {
	podDoc          `yaml:",inline"`
	Container       *str     `yaml:"container"`
	Reason          *str     `yaml:"reason"`
	RestartsAtLeast *integer `yaml:"restartsAtLeast"`
}

func (e *ContainerStateExpectation) Kind() string { return "containerState" }
func (e *ContainerStateExpectation) String() string {
	s := "containerState"
	if e.Reason != "" {
		s += " " + e.Reason
	}
	if e.RestartsAtLeast > 0 {
		s += fmt.Sprintf(" with at least %d restarts", e.RestartsAtLeast)
	}
	s += " for " + nsName(e.Namespace, e.Pod)
	if e.Container != "" {
		s += " container " + e.Container
	}
	return s
}

// parseContainerState reads {pod, namespace, container, reason,
// restartsAtLeast}, with a reason, restartsAtLeast, or both.
func parseContainerState(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[containerStateDoc](n)
	if err != nil {
		return nil, err
	}
	e := &ContainerStateExpectation{Container: d.Container.or(""), Reason: d.Reason.or("")}
	e.Pod, e.Namespace = d.ref()
	if d.RestartsAtLeast != nil {
		e.RestartsAtLeast = int32(*d.RestartsAtLeast)
	}
	if e.Reason == "" && e.RestartsAtLeast == 0 {
		return nil, errAt(n, "give a reason, restartsAtLeast, or both")
	}
	return e, nil
}

// probe reads the pod's container statuses from the API.
func (e *ContainerStateExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	pod, err := p.admin.CoreV1().Pods(e.Namespace).Get(ctx, e.Pod, metav1.GetOptions{})
	if err != nil {
		return errString(err), false, nil
	}
	var seen []string
	for _, cs := range pod.Status.ContainerStatuses {
		if e.Container != "" && cs.Name != e.Container {
			continue
		}
		state, reason := containerState(cs)
		if (e.Reason == "" || e.Reason == reason || e.Reason == state) && cs.RestartCount >= e.RestartsAtLeast {
			return "", true, nil
		}
		d := cs.Name + " " + state
		if reason != "" && reason != state {
			d += " (" + reason + ")"
		}
		seen = append(seen, fmt.Sprintf("%s, %d restarts", d, cs.RestartCount))
	}
	if len(seen) == 0 {
		return "no container status", false, nil
	}
	return joinComma(seen), false, nil
}

// containerState returns the kind of cs's state (Running, Terminated,
// Waiting, or "" for none) and its reason (Running for a running one).
func containerState(cs corev1.ContainerStatus) (state, reason string) {
	switch {
	case cs.State.Running != nil:
		return "Running", "Running"
	case cs.State.Terminated != nil:
		return "Terminated", cs.State.Terminated.Reason
	case cs.State.Waiting != nil:
		return "Waiting", cs.State.Waiting.Reason
	}
	return "", ""
}
