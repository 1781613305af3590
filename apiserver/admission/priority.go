package admission

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

var priorityClassesResource = schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}

// PriorityClassLister reads the PriorityClasses for the Priority plugin
// (upstream's plugin reads its informer's lister). Get returns a NotFound
// error for a class that does not exist. The classes returned are shared
// and must not be modified.
type PriorityClassLister interface {
	GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error)
	ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error)
}

// Priority is kube-apiserver's Priority admission plugin
// (plugin/pkg/admission/priority). Mutating, it resolves a new pod's
// spec.priorityClassName into spec.priority and spec.preemptionPolicy
// from the PriorityClasses its lister reads. Validating, it lets only one
// class be the global default, and refuses to delete a system class
// (upstream's priorityclasses storage does that; the Status is the same).
// It is safe for concurrent use.
type Priority struct {
	classes PriorityClassLister
}

var (
	_ MutatingPlugin   = (*Priority)(nil)
	_ ValidatingPlugin = (*Priority)(nil)
)

// NewPriority returns the plugin reading classes.
func NewPriority(classes PriorityClassLister) *Priority {
	return &Priority{classes: classes}
}

// Name returns "Priority".
func (*Priority) Name() string { return PriorityName }

// Handles reports whether upstream's Priority handles op (creates, updates and deletes).
func (*Priority) Handles(op Operation) bool { return handles(op, Create, Update, Delete) }

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
func (pr *Priority) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
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
		return keepPriority(pod, old), true, nil
	}
	class, err := pr.resolve(ctx, a, pod.Spec.PriorityClassName)
	if err != nil {
		return nil, true, err
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != class.Value {
		return nil, true, newForbidden(a, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, class.Value))
	}
	if pod.Spec.PreemptionPolicy != nil && class.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != *class.PreemptionPolicy {
		return nil, true, newForbidden(a, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, *class.PreemptionPolicy))
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
	if pod.Spec.PreemptionPolicy == nil && class.PreemptionPolicy != nil {
		policy := *class.PreemptionPolicy
		pod.Spec.PreemptionPolicy = &policy
		fields = append(fields, fmt.Sprintf("spec.preemptionPolicy=%s", policy))
	}
	return fields, true, nil
}

// keepPriority puts back the stored pod's spec.priority and
// spec.preemptionPolicy into an update that leaves them out, and returns
// the fields it set.
func keepPriority(pod, old *corev1.Pod) []string {
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
	return fields
}

// resolve returns the class a pod naming name gets: the named one, else
// the default one, else an unnamed class of value 0 that preempts.
func (pr *Priority) resolve(ctx context.Context, a *Attributes, name string) (*schedulingv1.PriorityClass, error) {
	if name != "" {
		c, err := pr.classes.GetPriorityClass(ctx, name)
		switch {
		case apierrors.IsNotFound(err):
			return nil, newForbidden(a, fmt.Errorf("no PriorityClass with name %v was found", name))
		case err != nil:
			return nil, fmt.Errorf("failed to resolve PriorityClass with name %s: %w", name, err)
		}
		return c, nil
	}
	def, err := pr.defaultClass(ctx)
	if err != nil {
		return nil, fmt.Errorf("error occurred while retrieving default priority class: %w", err)
	}
	if def != nil {
		return def, nil
	}
	lower := corev1.PreemptLowerPriority
	return &schedulingv1.PriorityClass{Value: 0, PreemptionPolicy: &lower}, nil
}

// defaultClass returns the GlobalDefault class with the lowest value
// (there may be two after a race), or nil.
func (pr *Priority) defaultClass(ctx context.Context) (*schedulingv1.PriorityClass, error) {
	list, err := pr.classes.ListPriorityClasses(ctx)
	if err != nil {
		return nil, err
	}
	var def *schedulingv1.PriorityClass
	for _, c := range list {
		if c.GlobalDefault && (def == nil || c.Value < def.Value) {
			def = c
		}
	}
	return def, nil
}

// Validate acts on priorityclasses (not their subresources). A create of
// a GlobalDefault class while another is the default, or an update that
// makes a class the default while another is, is rejected with 403
// `priorityclasses.scheduling.k8s.io "b" is forbidden: PriorityClass a is
// already marked as default. Only one default can exist`. A delete of
// system-node-critical or system-cluster-critical is rejected with 403
// `... is forbidden: this is a system priority class and cannot be
// deleted`.
func (pr *Priority) Validate(ctx context.Context, a *Attributes) (bool, error) {
	if a.Subresource != "" || a.Resource.GroupResource() != priorityClassesResource {
		return false, nil
	}
	if a.Operation == Delete {
		name := a.Name
		if old, ok := a.OldObject.(*schedulingv1.PriorityClass); ok {
			name = old.Name // a delete of the collection names none
		}
		if slices.Contains([]string{SystemNodeCritical, SystemClusterCritical}, name) {
			return true, apierrors.NewForbidden(priorityClassesResource, name, fmt.Errorf("this is a system priority class and cannot be deleted"))
		}
		return true, nil
	}
	pc, ok := a.Object.(*schedulingv1.PriorityClass)
	if !ok {
		return true, apierrors.NewBadRequest("resource was marked with kind PriorityClass but was unable to be converted")
	}
	if !pc.GlobalDefault {
		return true, nil
	}
	def, err := pr.defaultClass(ctx)
	if err != nil {
		return true, fmt.Errorf("failed to get default priority class: %w", err)
	}
	if def != nil && (a.Operation == Create || def.Name != pc.Name) {
		return true, newForbidden(a, fmt.Errorf("PriorityClass %v is already marked as default. Only one default can exist", def.Name))
	}
	return true, nil
}
