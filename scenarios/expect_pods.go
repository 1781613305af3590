package scenarios

import (
	"context"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PodsExpectation: exactly Count of the pods that match Selector in
// Namespace (bound to Node, or to any node but NotOn, if given) are as
// asked: Ready (True or False) if set, being deleted or not if
// Terminating is set, with the condition Condition True (and of Reason)
// if set. It is for the pods of a controller, whose names a scenario
// cannot know.
type PodsExpectation struct {
	Selector          string
	Namespace         string
	Node, NotOn       string
	Count             int64
	Ready             string
	Terminating       *bool
	Condition, Reason string
}

var _ prober = (*PodsExpectation)(nil)

// podsDoc is pods as written.
type podsDoc struct {
	Selector    *str        `yaml:"selector"`
	Namespace   *objectName `yaml:"namespace"`
	Node        *str        `yaml:"node"`
	NotOn       *str        `yaml:"notOn"`
	Count       integer     `yaml:"count" load:"required"`
	Ready       *str        `yaml:"ready"`
	Terminating *boolean    `yaml:"terminating"`
	Condition   *str        `yaml:"condition"`
	Reason      *str        `yaml:"reason"`
}

// Kind returns "pods".
func (e *PodsExpectation) Kind() string { return "pods" }

// String says how many of which pods must be how.
func (e *PodsExpectation) String() string {
	s := fmt.Sprintf("%d pod(s) %s", e.Count, e.Selector)
	if e.Node != "" {
		s += " on " + e.Node
	}
	if e.NotOn != "" {
		s += " not on " + e.NotOn
	}
	return s + e.wants()
}

// wants is the state asked for, for messages.
func (e *PodsExpectation) wants() string {
	var w []string
	if e.Ready != "" {
		w = append(w, "Ready="+e.Ready)
	}
	if e.Terminating != nil {
		w = append(w, fmt.Sprintf("terminating=%v", *e.Terminating))
	}
	if e.Condition != "" {
		c := e.Condition + "=True"
		if e.Reason != "" {
			c += " (" + e.Reason + ")"
		}
		w = append(w, c)
	}
	if len(w) == 0 {
		return ""
	}
	return ", " + strings.Join(w, ", ")
}

// parsePods reads {selector, namespace, node, notOn, count, ready,
// terminating, condition, reason}: selector and count are required;
// reason needs condition.
func parsePods(_ *loader, _ string, n *yaml.Node) (Expectation, error) {
	d, err := decodeAs[podsDoc](n)
	if err != nil {
		return nil, err
	}
	e := &PodsExpectation{Namespace: DefaultNamespace, Node: d.Node.or(""), NotOn: d.NotOn.or(""), Count: int64(d.Count),
		Terminating: boolOf(d.Terminating), Condition: d.Condition.or(""), Reason: d.Reason.or("")}
	if e.Selector, err = podsSelector(n, d.Selector); err != nil {
		return nil, err
	}
	if e.Count < 0 {
		return nil, errAt(valueOf(n, "count"), "%d is negative", e.Count)
	}
	if d.Namespace != nil {
		e.Namespace = string(*d.Namespace)
	}
	if e.Ready, err = d.Ready.oneOf(valueOf(n, "ready"), "", []string{"True", "False"}); err != nil {
		return nil, err
	}
	if d.Reason != nil && e.Condition == "" {
		return nil, errAbout(valueOf(n, "reason"), keyOf(n, "reason"), "needs condition")
	}
	return e, nil
}

// podsSelector returns the label selector s of pods n, which must be
// given and select something, in its canonical form.
func podsSelector(n *yaml.Node, s *str) (string, error) {
	if s == nil {
		return "", errAt(n, "missing field \"selector\" (a label selector such as app=web)")
	}
	sel, err := labels.Parse(string(*s))
	if err != nil || sel.Empty() {
		return "", errAt(valueOf(n, "selector"), "%q is not a label selector such as app=web", *s)
	}
	return sel.String(), nil
}

// probe lists the pods from the API and counts those as asked.
func (e *PodsExpectation) probe(ctx context.Context, p *player) (string, bool, <-chan struct{}) {
	list, err := p.admin.CoreV1().Pods(e.Namespace).List(ctx, metav1.ListOptions{LabelSelector: e.Selector})
	if err != nil {
		return errString(err), false, nil
	}
	var n int64
	var seen []string
	for i := range list.Items {
		pod := &list.Items[i]
		if (e.Node != "" && pod.Spec.NodeName != e.Node) || (e.NotOn != "" && pod.Spec.NodeName == e.NotOn) {
			continue
		}
		if e.matches(pod) {
			n++
		}
		seen = append(seen, describePod(pod))
	}
	if n == e.Count {
		return "", true, nil
	}
	if len(seen) == 0 {
		return "no such pods", false, nil
	}
	return fmt.Sprintf("%d as asked; pods %s", n, joinComma(seen)), false, nil
}

// matches reports whether the pod is in the state asked for.
func (e *PodsExpectation) matches(pod *corev1.Pod) bool {
	if e.Terminating != nil && (pod.DeletionTimestamp != nil) != *e.Terminating {
		return false
	}
	if e.Ready != "" && string(podConditionStatus(pod, corev1.PodReady)) != e.Ready {
		return false
	}
	if e.Condition != "" {
		c := podConditionOf(pod, corev1.PodConditionType(e.Condition))
		if c == nil || c.Status != corev1.ConditionTrue || (e.Reason != "" && c.Reason != e.Reason) {
			return false
		}
	}
	return true
}

func podConditionOf(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// podConditionStatus is the status of the pod's condition t, False if
// it has none.
func podConditionStatus(pod *corev1.Pod, t corev1.PodConditionType) corev1.ConditionStatus {
	if c := podConditionOf(pod, t); c != nil {
		return c.Status
	}
	return corev1.ConditionFalse
}

// describePod is a pod in a probe's message: name, node, Ready, and
// "terminating" if it is being deleted.
func describePod(pod *corev1.Pod) string {
	s := fmt.Sprintf("%s on %s Ready=%s", pod.Name, pod.Spec.NodeName, podConditionStatus(pod, corev1.PodReady))
	if pod.DeletionTimestamp != nil {
		s += " terminating"
	}
	return s
}
