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

// podsKeys are the fields of pods.
var podsKeys = []string{"selector", "namespace", "node", "notOn", "count", "ready", "terminating", "condition", "reason"}

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
func parsePods(l *loader, key string, n *yaml.Node) (Expectation, error) {
	fields, _, err := l.fields(n, key, podsKeys)
	if err != nil {
		return nil, err
	}
	e := &PodsExpectation{Namespace: DefaultNamespace}
	if err := l.podsSelector(n, fields, key, e); err != nil {
		return nil, err
	}
	cf, ok := fields["count"]
	if !ok {
		return nil, l.errAt(n, "%s: missing field \"count\"", key)
	}
	if e.Count, err = l.integer(cf.val, key+".count"); err != nil {
		return nil, err
	}
	if e.Count < 0 {
		return nil, l.errAt(cf.val, "%s.count: %d is negative", key, e.Count)
	}
	for name, dst := range map[string]*string{"node": &e.Node, "notOn": &e.NotOn, "condition": &e.Condition, "reason": &e.Reason} {
		if err := l.optionalStr(fields, key, name, dst); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["namespace"]; ok {
		if e.Namespace, err = l.objectName(f.val, key+".namespace"); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["ready"]; ok {
		if e.Ready, err = l.oneOf(f.val, key+".ready", []string{"True", "False"}); err != nil {
			return nil, err
		}
	}
	if f, ok := fields["terminating"]; ok {
		b, err := l.boolean(f.val, key+".terminating")
		if err != nil {
			return nil, err
		}
		e.Terminating = &b
	}
	if f, ok := fields["reason"]; ok && e.Condition == "" {
		return nil, l.errAt(f.key, "%s.reason: needs condition", key)
	}
	return e, nil
}

// podsSelector reads the required label selector.
func (l *loader) podsSelector(n *yaml.Node, fields map[string]field, key string, e *PodsExpectation) error {
	f, ok := fields["selector"]
	if !ok {
		return l.errAt(n, "%s: missing field \"selector\" (a label selector such as app=web)", key)
	}
	s, err := l.str(f.val, key+".selector")
	if err != nil {
		return err
	}
	sel, err := labels.Parse(s)
	if err != nil || sel.Empty() {
		return l.errAt(f.val, "%s.selector: %q is not a label selector such as app=web", key, s)
	}
	e.Selector = sel.String()
	return nil
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
