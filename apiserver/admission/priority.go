package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PriorityName is the Priority plugin's name.
const PriorityName = "Priority"

// The two PriorityClasses every cluster has, with kube-apiserver's values.
const (
	SystemClusterCritical         = "system-cluster-critical"
	SystemNodeCritical            = "system-node-critical"
	SystemCriticalPriority  int32 = 2000000000
	SystemNodeCriticalValue int32 = SystemCriticalPriority + 1000
)

// Priority resolves a new pod's spec.priorityClassName into spec.priority
// and spec.preemptionPolicy, as kube-apiserver's Priority plugin does. It
// knows the two system classes plus the classes given to NewPriority; it
// is safe for concurrent use.
type Priority struct {
	classes map[string]*schedulingv1.PriorityClass
}

var _ MutatingPlugin = (*Priority)(nil)

// NewPriority returns the plugin knowing system-cluster-critical,
// system-node-critical and classes (which may add more, or a GlobalDefault
// class for pods that name none). A class without preemptionPolicy gets
// PreemptLowerPriority, as when it is stored.
func NewPriority(classes ...schedulingv1.PriorityClass) *Priority {
	p := &Priority{classes: map[string]*schedulingv1.PriorityClass{}}
	lower := corev1.PreemptLowerPriority
	system := []schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: SystemNodeCritical}, Value: SystemNodeCriticalValue},
		{ObjectMeta: metav1.ObjectMeta{Name: SystemClusterCritical}, Value: SystemCriticalPriority},
	}
	for _, c := range append(system, classes...) {
		c := *c.DeepCopy()
		if c.PreemptionPolicy == nil {
			c.PreemptionPolicy = &lower
		}
		p.classes[c.Name] = &c
	}
	return p
}

// Name returns "Priority".
func (*Priority) Name() string { return PriorityName }

// Admit acts on pods (not their subresources).
//
// On create it looks the class up: none named means the GlobalDefault
// class with the lowest value, or, without one, priority 0 and
// PreemptLowerPriority; an unknown name is rejected with 403
// `pods "p" is forbidden: no PriorityClass with name X was found`. A pod
// that sets spec.priority or spec.preemptionPolicy to anything but what
// the class gives is rejected with 403 too. Fields look like
// "spec.priority=0".
//
// On update it puts back spec.priority and spec.preemptionPolicy from the
// stored pod if the new object leaves them out (as a kubectl replace of a
// manifest does), so that the update is not rejected for changing them.
func (pr *Priority) Admit(_ context.Context, a *Attributes) ([]string, bool, error) {
	if a.Subresource != "" || a.Resource.GroupResource() != podsResource || (a.Operation != Create && a.Operation != Update) {
		return nil, false, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, true, apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
	}
	if a.Operation == Update {
		old, ok := a.OldObject.(*corev1.Pod)
		if !ok {
			return nil, true, apierrors.NewBadRequest("resource was marked with kind Pod but was unable to be converted")
		}
		var fields []string
		if pod.Spec.Priority == nil && old.Spec.Priority != nil {
			v := *old.Spec.Priority
			pod.Spec.Priority = &v
			fields = append(fields, fmt.Sprintf("spec.priority=%d", v))
		}
		if pod.Spec.PreemptionPolicy == nil && old.Spec.PreemptionPolicy != nil {
			v := *old.Spec.PreemptionPolicy
			pod.Spec.PreemptionPolicy = &v
			fields = append(fields, fmt.Sprintf("spec.preemptionPolicy=%s", v))
		}
		return fields, true, nil
	}

	class, err := pr.resolve(a, pod.Spec.PriorityClassName)
	if err != nil {
		return nil, true, err
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != class.Value {
		return nil, true, newForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, class.Value))
	}
	policy := *class.PreemptionPolicy
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return nil, true, newForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	var fields []string
	if pod.Spec.PriorityClassName != class.Name {
		pod.Spec.PriorityClassName = class.Name
		fields = append(fields, "spec.priorityClassName="+class.Name)
	}
	if pod.Spec.Priority == nil {
		v := class.Value
		pod.Spec.Priority = &v
		fields = append(fields, fmt.Sprintf("spec.priority=%d", v))
	}
	if pod.Spec.PreemptionPolicy == nil {
		pod.Spec.PreemptionPolicy = &policy
		fields = append(fields, fmt.Sprintf("spec.preemptionPolicy=%s", policy))
	}
	return fields, true, nil
}

// resolve returns the class a pod naming name gets: the named one, else
// the default one, else an unnamed class of value 0.
func (pr *Priority) resolve(a *Attributes, name string) (*schedulingv1.PriorityClass, error) {
	if name != "" {
		c, ok := pr.classes[name]
		if !ok {
			return nil, newForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", name))
		}
		return c, nil
	}
	var def *schedulingv1.PriorityClass
	for _, c := range pr.classes {
		if c.GlobalDefault && (def == nil || c.Value < def.Value) {
			def = c
		}
	}
	if def != nil {
		return def, nil
	}
	lower := corev1.PreemptLowerPriority
	return &schedulingv1.PriorityClass{Value: 0, PreemptionPolicy: &lower}, nil
}
