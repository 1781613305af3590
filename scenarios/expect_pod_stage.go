package scenarios

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// PodStageExpectation: the pod has reached Stage, as the flow events of
// the running components tell (not the API); with Instance, an event of
// that stage names an instance starting with it (the API server or the
// scheduler instance that acted, where several run).
type PodStageExpectation struct {
	Pod, Namespace string
	Stage          flow.Stage
	Instance       string
}

var _ prober = (*PodStageExpectation)(nil)

// podStageDoc is podStage as written.
type podStageDoc struct {
	podDoc   `yaml:",inline"`
	Stage    stageValue `yaml:"stage" load:"required"`
	Instance *str       `yaml:"instance"`
}

func (e *PodStageExpectation) Kind() string { return "podStage" }
func (e *PodStageExpectation) String() string {
	s := fmt.Sprintf("podStage %d (%s) for %s", int(e.Stage), e.Stage, nsName(e.Namespace, e.Pod))
	if e.Instance != "" {
		s += fmt.Sprintf(" by %s…", e.Instance)
	}
	return s
}

// parsePodStage reads {pod, namespace, stage}: stage is a number (1-8)
// or a stage's name.
func parsePodStage(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[podStageDoc](n)
	if err != nil {
		return nil, err
	}
	e := &PodStageExpectation{Stage: flow.Stage(d.Stage), Instance: d.Instance.or("")}
	e.Pod, e.Namespace = d.ref()
	return e, nil
}

// stageNames lists "1-8 or admitted, persisted, ..." for messages.
func stageNames() string {
	names := make([]string, len(flow.Stages))
	for i, s := range flow.Stages {
		names[i] = s.Name
	}
	return "1 to 8, or one of " + strings.Join(names, ", ")
}

// stageValue is a stage: its number (1-8) or its name
// ("status-persisted").
type stageValue flow.Stage

func (s *stageValue) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int":
		v, err := strconv.Atoi(n.Value)
		if err != nil || v < 1 || v > len(flow.Stages) {
			return errAt(n, "%s is not a stage (%s)", flow.Printable(n.Value), stageNames())
		}
		*s = stageValue(v)
		return nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		for _, st := range flow.Stages {
			if st.Name == n.Value {
				*s = stageValue(st.Stage)
				return nil
			}
		}
		return errAt(n, "%q is not a stage (%s)", n.Value, stageNames())
	}
	return errAt(n, "expected a stage number or name, got %s", describe(n))
}

// probe looks through the flow events recorded so far for the stage, of
// the pod the API has under that name now (by its UID), or of any pod of
// that name when the API has none.
func (e *PodStageExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	var uid types.UID
	if pod, err := p.admin.CoreV1().Pods(e.Namespace).Get(ctx, e.Pod, metav1.GetOptions{}); err == nil {
		uid = pod.UID
	}
	events, changed := p.snapshot()
	highest := flow.Stage(0)
	var by []string
	for _, ev := range events {
		if ev.Stage == 0 || ev.Object.Kind != "Pod" || ev.Object.Namespace != e.Namespace || ev.Object.Name != e.Pod {
			continue
		}
		if uid != "" && ev.Object.UID != uid {
			continue
		}
		if ev.Stage == e.Stage {
			if strings.HasPrefix(ev.Instance, e.Instance) {
				return "", true, changed
			}
			by = append(by, fmt.Sprintf("%q", ev.Instance))
		}
		highest = max(highest, ev.Stage)
	}
	if len(by) > 0 {
		return fmt.Sprintf("stage %d (%s) by %s", int(e.Stage), e.Stage, strings.Join(by, ", ")), false, changed
	}
	if highest == 0 {
		return "no stage events for it", false, changed
	}
	return fmt.Sprintf("stage %d (%s) as the furthest", int(highest), highest), false, changed
}
