package scenarios

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubesim/kubesim/internal/flow"
)

// The facts of a pod: where it was bound, and what the flow events of
// its stages say (the component that recorded a stage, the
// resourceVersions the stages carried).

// componentValues are the components flow events name (a kubelet's
// "kubelet/node-1" is "kubelet").
var componentValues = []string{"apiserver", "scheduler", "kubelet"}

// validNodeValue accepts a node name or none.
func validNodeValue(v string) bool {
	return v == "none" || len(validation.IsDNS1123Subdomain(v)) == 0
}

// podFact names the pod a fact is about.
type podFact struct{ Pod, Namespace string }

// podFact returns the pod the question d (read from n) names: pod, in
// namespace (DefaultNamespace if it names none).
func (d *questionDoc) podFact(n *yaml.Node) (podFact, error) {
	if d.Pod == nil {
		return podFact{}, errAt(n, "missing field \"pod\"")
	}
	f := podFact{Pod: string(*d.Pod), Namespace: DefaultNamespace}
	if d.Namespace != nil {
		f.Namespace = string(*d.Namespace)
	}
	return f, nil
}

func (f podFact) String() string { return nsName(f.Namespace, f.Pod) }

// nodeFact is the node the pod is bound to (spec.nodeName, read from
// the API after the step), "none" while it is bound to none.
type nodeFact struct{ podFact }

func parseNodeFact(d *questionDoc, n *yaml.Node) (fact, error) {
	pf, err := d.podFact(n)
	return nodeFact{pf}, err
}

func (f nodeFact) about() flow.Text {
	return flow.Text{En: "node of " + f.String(), Zh: f.String() + " 所在的节点"}
}

func (f nodeFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	_, changed := p.snapshot()
	pod, err := p.admin.CoreV1().Pods(f.Namespace).Get(ctx, f.Pod, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "no such pod", false, changed
	}
	if err != nil {
		return err.Error(), false, changed
	}
	if pod.Spec.NodeName == "" {
		return "none", true, nil
	}
	return pod.Spec.NodeName, true, nil
}

// componentFact is the component that recorded the pod's event of Stage:
// the API server for the stages it sees (stage 3's frame is its write to
// the scheduler's watch), the scheduler for stage 4, a kubelet for its
// status report (7). Stage 6 has events of both the API server and the
// kubelet, and is refused.
type componentFact struct {
	podFact
	Stage flow.Stage
}

func parseComponentFact(d *questionDoc, n *yaml.Node) (fact, error) {
	pf, err := d.podFact(n)
	if err != nil {
		return nil, err
	}
	stage, err := factStage(n, "stage", d.Stage)
	if err == nil && stage == flow.StageKubeletNotified {
		return nil, errAt(valueOf(n, "stage"), "stage 6 (kubelet-notified) is recorded by two components, the API server (its watch frame to the kubelet) and the kubelet (its runtime actions): ask about another stage")
	}
	return componentFact{pf, stage}, err
}

// factStage returns the stage v of field key of question n, which must
// be there.
func factStage(n *yaml.Node, key string, v *stageValue) (flow.Stage, error) {
	if v == nil {
		return 0, errAt(n, "missing field %q", key)
	}
	return flow.Stage(*v), nil
}

func (f componentFact) about() flow.Text {
	return flow.Text{En: fmt.Sprintf("component that recorded stage %d (%s) of %s", int(f.Stage), f.Stage, f),
		Zh: fmt.Sprintf("记录 %s 第 %d 阶段（%s）的组件", f, int(f.Stage), f.Stage)}
}

func (f componentFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	ev, ok, changed := p.stageEvent(ctx, f.podFact, f.Stage, func(flow.Event) bool { return true })
	if !ok {
		return fmt.Sprintf("no stage %d event for %s yet", int(f.Stage), f), false, changed
	}
	component, _, _ := strings.Cut(ev.Component, "/")
	return component, true, nil
}

// stageRVFact compares the resourceVersion a stage of the pod carried
// (the revision of its etcd write, stages 2, 5 and 8, or of the object in
// its watch frame, stages 3 and 6) with the one stage Than carried: less,
// same or greater.
type stageRVFact struct {
	podFact
	Stage, Than flow.Stage
}

// stagesWithRV are the stages whose events carry a resourceVersion.
var stagesWithRV = []flow.Stage{flow.StagePersisted, flow.StageSchedulerNotified, flow.StageBindingPersisted, flow.StageKubeletNotified, flow.StageStatusPersisted}

func parseStageRVFact(d *questionDoc, n *yaml.Node) (fact, error) {
	pf, err := d.podFact(n)
	if err != nil {
		return nil, err
	}
	f := stageRVFact{podFact: pf}
	for _, s := range []struct {
		key string
		v   *stageValue
		dst *flow.Stage
	}{{"stage", d.Stage, &f.Stage}, {"than", d.Than, &f.Than}} {
		if *s.dst, err = factStage(n, s.key, s.v); err != nil {
			return nil, err
		}
		if !slices.Contains(stagesWithRV, *s.dst) {
			return nil, errAt(valueOf(n, s.key), "stage %d (%s) carries no resourceVersion (stages 2, 3, 5, 6 and 8 do)", int(*s.dst), *s.dst)
		}
	}
	if f.Stage == f.Than {
		return nil, errAt(valueOf(n, "than"), "the same stage as stage")
	}
	return f, nil
}

// stageRV is the resourceVersion ev carries: its etcd write's revision,
// or that of the object in its watch frame; "" for none.
func stageRV(ev flow.Event) string {
	switch {
	case ev.Etcd != nil:
		return strconv.FormatInt(ev.Etcd.Revision, 10)
	case ev.Watch != nil:
		return ev.Watch.ResourceVersion
	}
	return ""
}

func (f stageRVFact) about() flow.Text {
	return flow.Text{En: fmt.Sprintf("resourceVersion of %s at stage %d (%s), against the one of stage %d (%s)", f, int(f.Stage), f.Stage, int(f.Than), f.Than),
		Zh: fmt.Sprintf("%s 第 %d 阶段（%s）的 resourceVersion 与第 %d 阶段（%s）的相比", f, int(f.Stage), f.Stage, int(f.Than), f.Than)}
}

func (f stageRVFact) look(ctx context.Context, p *player, _ *StepResult) (string, bool, <-chan struct{}) {
	withRV := func(ev flow.Event) bool { return stageRV(ev) != "" }
	var rvs [2]string
	for i, s := range []flow.Stage{f.Stage, f.Than} {
		ev, ok, changed := p.stageEvent(ctx, f.podFact, s, withRV)
		if !ok {
			return fmt.Sprintf("no stage %d event with a resourceVersion for %s yet", int(s), f), false, changed
		}
		rvs[i] = stageRV(ev)
	}
	v, err := compareRevisions(rvs[0], rvs[1])
	if err != nil {
		return err.Error(), false, nil
	}
	return v, true, nil
}

// stageEvent returns the first event recorded so far of the pod's stage
// for which match holds, of the pod the API has under that name now (by
// its UID), or of any pod of that name when the API has none (as
// podStage looks). changed is closed when more events arrive.
func (p *player) stageEvent(ctx context.Context, f podFact, stage flow.Stage, match func(flow.Event) bool) (flow.Event, bool, <-chan struct{}) {
	var uid types.UID
	if pod, err := p.admin.CoreV1().Pods(f.Namespace).Get(ctx, f.Pod, metav1.GetOptions{}); err == nil {
		uid = pod.UID
	}
	events, changed := p.snapshot()
	for _, ev := range events {
		if ev.Stage != stage || ev.Object.Kind != "Pod" || ev.Object.Namespace != f.Namespace || ev.Object.Name != f.Pod {
			continue
		}
		if (uid == "" || ev.Object.UID == uid) && match(ev) {
			return ev, true, changed
		}
	}
	return flow.Event{}, false, changed
}
