package scenarios

import (
	"context"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/labels"
)

// PodTimelineAction shows, from this run's evidence, the moments of the
// pods that match Selector in Namespace so far, in etcd revision order:
// each pod's create, binding, first Running-and-Ready write, deletion
// request and delete, with who wrote it (see pod_moments.go). It sends
// nothing; the transcript is the timeline.
type PodTimelineAction struct {
	Selector  string
	Namespace string
}

var _ actionRunner = (*PodTimelineAction)(nil)

// podTimelineDoc is podTimeline as written.
type podTimelineDoc struct {
	Selector  *str        `yaml:"selector"`
	Namespace *objectName `yaml:"namespace"`
}

// Kind returns "podTimeline".
func (a *PodTimelineAction) Kind() string { return "podTimeline" }

// String names the pods whose timeline it shows.
func (a *PodTimelineAction) String() string {
	return "the timeline of pods " + a.Selector + " in " + a.Namespace + ", from this run's etcd writes"
}

// parsePodTimeline reads {selector, namespace}: selector is required.
func parsePodTimeline(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	d, err := decodeAs[podTimelineDoc](n)
	if err != nil {
		return nil, err
	}
	a := &PodTimelineAction{Namespace: DefaultNamespace}
	if a.Selector, err = podsSelector(n, d.Selector); err != nil {
		return nil, err
	}
	if d.Namespace != nil {
		a.Namespace = string(*d.Namespace)
	}
	return a, nil
}

func init() {
	registerTranscriptZh(map[string]string{
		"revision %d: %s created by %s":                     "revision %d：%s 被创建，写入者 %s",
		"revision %d: %s bound to %s by %s":                 "revision %d：%s 被绑定到 %s，写入者 %s",
		"revision %d: %s Running and Ready on %s (%s)":      "revision %d：%s 在 %s 上 Running 且 Ready（%s）",
		"revision %d: %s terminating: deletion asked by %s": "revision %d：%s 进入 Terminating：%s 发起删除",
		"revision %d: %s deleted from etcd (%s)":            "revision %d：%s 从 etcd 中删除（%s）",
		"(no pod of %s has been written yet)":               "（还没有写入过 %s 的 Pod）",
	})
	transcriptArgZh["the API server itself"] = "API Server 自己"
}

// run lists the moments recorded so far; it never fails.
func (a *PodTimelineAction) run(_ context.Context, p *player, _ string) (StepResult, error) {
	sel, err := labels.Parse(a.Selector)
	if err != nil {
		return StepResult{}, err
	}
	events, _ := p.snapshot()
	ms := selectMoments(podMoments(events, a.Namespace), sel)
	var res StepResult
	if len(ms) == 0 {
		addTranscript(&res, "(no pod of %s has been written yet)", a.Selector)
	}
	for _, m := range ms {
		addMomentLine(&res, m)
	}
	return res, nil
}

// addMomentLine adds the transcript line of moment m.
func addMomentLine(res *StepResult, m podMoment) {
	by := m.User
	if by == "" {
		by = "the API server itself"
	}
	switch m.Moment {
	case momentCreated:
		addTranscript(res, "revision %d: %s created by %s", m.Revision, m.Pod, by)
	case momentBound:
		addTranscript(res, "revision %d: %s bound to %s by %s", m.Revision, m.Pod, m.Node, by)
	case momentReady:
		addTranscript(res, "revision %d: %s Running and Ready on %s (%s)", m.Revision, m.Pod, m.Node, by)
	case momentTerminating:
		addTranscript(res, "revision %d: %s terminating: deletion asked by %s", m.Revision, m.Pod, by)
	case momentDeleted:
		addTranscript(res, "revision %d: %s deleted from etcd (%s)", m.Revision, m.Pod, by)
	default:
		addTranscript(res, "%s", fmt.Sprintf("revision %d: %s %s", m.Revision, m.Pod, m.Moment))
	}
}
