package admission_test

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/admission"
)

func TestPriorityCreate(t *testing.T) {
	lower, never := corev1.PreemptLowerPriority, corev1.PreemptNever
	tests := []struct {
		name       string
		classes    []schedulingv1.PriorityClass
		mutate     func(p *corev1.Pod)
		want       wantErr
		wantFields []string
		wantSpec   func(s *corev1.PodSpec)
	}{
		{"no class: priority 0", nil, func(p *corev1.Pod) {}, wantErr{},
			[]string{"spec.priority=0", "spec.preemptionPolicy=PreemptLowerPriority"},
			func(s *corev1.PodSpec) { s.Priority, s.PreemptionPolicy = ptr.To[int32](0), &lower }},
		{"system-cluster-critical", nil, func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-cluster-critical" }, wantErr{},
			[]string{"spec.priority=2000000000", "spec.preemptionPolicy=PreemptLowerPriority"},
			func(s *corev1.PodSpec) {
				s.PriorityClassName, s.Priority, s.PreemptionPolicy = "system-cluster-critical", ptr.To[int32](2000000000), &lower
			}},
		{"system-node-critical", nil, func(p *corev1.Pod) { p.Spec.PriorityClassName = "system-node-critical" }, wantErr{},
			[]string{"spec.priority=2000001000", "spec.preemptionPolicy=PreemptLowerPriority"},
			func(s *corev1.PodSpec) {
				s.PriorityClassName, s.Priority, s.PreemptionPolicy = "system-node-critical", ptr.To[int32](2000001000), &lower
			}},
		{"unknown class", nil, func(p *corev1.Pod) { p.Spec.PriorityClassName = "gold" },
			forbidden(`pods "p" is forbidden: no PriorityClass with name gold was found`), nil, nil},
		{"own priority that differs", nil, func(p *corev1.Pod) { p.Spec.Priority = ptr.To[int32](10) },
			forbidden(`pods "p" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name`), nil, nil},
		{"own priority that matches", nil, func(p *corev1.Pod) { p.Spec.Priority = ptr.To[int32](0) }, wantErr{},
			[]string{"spec.preemptionPolicy=PreemptLowerPriority"},
			func(s *corev1.PodSpec) { s.Priority, s.PreemptionPolicy = ptr.To[int32](0), &lower }},
		{"own preemptionPolicy that differs", nil, func(p *corev1.Pod) { p.Spec.PreemptionPolicy = &never },
			forbidden(`pods "p" is forbidden: the string value of PreemptionPolicy (Never) must not be provided in pod spec; priority admission controller computed PreemptLowerPriority from the given PriorityClass name`), nil, nil},
		{"extra class", []schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "batch"}, Value: 100, PreemptionPolicy: &never}},
			func(p *corev1.Pod) { p.Spec.PriorityClassName = "batch" }, wantErr{},
			[]string{"spec.priority=100", "spec.preemptionPolicy=Never"},
			func(s *corev1.PodSpec) {
				s.PriorityClassName, s.Priority, s.PreemptionPolicy = "batch", ptr.To[int32](100), &never
			}},
		{"global default class, the lowest one wins", []schedulingv1.PriorityClass{
			{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000, GlobalDefault: true},
			{ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 10, GlobalDefault: true},
		}, func(p *corev1.Pod) {}, wantErr{},
			[]string{"spec.priorityClassName=low", "spec.priority=10", "spec.preemptionPolicy=PreemptLowerPriority"},
			func(s *corev1.PodSpec) {
				s.PriorityClassName, s.Priority, s.PreemptionPolicy = "low", ptr.To[int32](10), &lower
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simplePod("p")
			tt.mutate(pod)
			fields, handled, err := admission.NewPriority(classList(tt.classes...)).Admit(context.Background(), podAttrs(admission.Create, "default", pod))
			checkErr(t, err, tt.want)
			if !handled {
				t.Error("handled = false, want true")
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(fields, tt.wantFields) {
				t.Errorf("fields = %q, want %q", fields, tt.wantFields)
			}
			want := simplePod("p").Spec
			tt.wantSpec(&want)
			if !reflect.DeepEqual(pod.Spec, want) {
				t.Errorf("spec = %+v, want %+v", pod.Spec, want)
			}
		})
	}
}

func TestPriorityUpdateKeepsStoredValues(t *testing.T) {
	lower := corev1.PreemptLowerPriority
	old := simplePod("p")
	old.Spec.Priority, old.Spec.PreemptionPolicy = ptr.To[int32](0), &lower
	pod := simplePod("p") // a replace with the original manifest
	a := podAttrs(admission.Update, "default", pod)
	a.OldObject = old
	fields, handled, err := admission.NewPriority(classList()).Admit(context.Background(), a)
	if err != nil || !handled {
		t.Fatalf("Admit = %v, %v", handled, err)
	}
	if want := []string{"spec.priority=0", "spec.preemptionPolicy=PreemptLowerPriority"}; !reflect.DeepEqual(fields, want) {
		t.Errorf("fields = %q, want %q", fields, want)
	}
	if pod.Spec.Priority == nil || *pod.Spec.Priority != 0 || pod.Spec.PreemptionPolicy == nil || *pod.Spec.PreemptionPolicy != lower {
		t.Errorf("spec = %+v", pod.Spec)
	}
	// An update that carries them changes nothing.
	fields, handled, err = admission.NewPriority(classList()).Admit(context.Background(), a)
	if fields != nil || !handled || err != nil {
		t.Errorf("second Admit = %q %v %v, want passed", fields, handled, err)
	}
}

func TestPrioritySkips(t *testing.T) {
	p := admission.NewPriority(classList())
	for _, a := range []*admission.Attributes{
		{Operation: admission.Update, Resource: podsGVR, Subresource: "status", Object: simplePod("p")},
		{Operation: admission.Delete, Resource: podsGVR, Name: "p"},
		{Operation: admission.Create, Resource: nodesGVR, Object: &corev1.Node{}},
	} {
		if fields, handled, err := p.Admit(context.Background(), a); fields != nil || handled || err != nil {
			t.Errorf("%s %s/%s: got %v %v %v, want skipped", a.Operation, a.Resource.Resource, a.Subresource, fields, handled, err)
		}
	}
}

// staticClasses is a PriorityClassLister over a fixed list.
type staticClasses []*schedulingv1.PriorityClass

// classList returns the lister of the two system classes and classes,
// each with preemptionPolicy PreemptLowerPriority unless it has one, as
// when it is stored.
func classList(classes ...schedulingv1.PriorityClass) staticClasses {
	lower := corev1.PreemptLowerPriority
	system := []schedulingv1.PriorityClass{
		{ObjectMeta: metav1.ObjectMeta{Name: admission.SystemNodeCritical}, Value: admission.SystemNodeCriticalValue},
		{ObjectMeta: metav1.ObjectMeta{Name: admission.SystemClusterCritical}, Value: admission.SystemCriticalPriority},
	}
	var out staticClasses
	for _, c := range append(system, classes...) {
		c := c.DeepCopy()
		if c.PreemptionPolicy == nil {
			c.PreemptionPolicy = &lower
		}
		out = append(out, c)
	}
	return out
}

func (s staticClasses) GetPriorityClass(_ context.Context, name string) (*schedulingv1.PriorityClass, error) {
	for _, c := range s {
		if c.Name == name {
			return c, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Group: "scheduling.k8s.io", Resource: "priorityclasses"}, name)
}

func (s staticClasses) ListPriorityClasses(context.Context) ([]*schedulingv1.PriorityClass, error) {
	return s, nil
}

func TestPriorityValidateClasses(t *testing.T) {
	pcGVR := schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
	def := schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "d1"}, Value: 10, GlobalDefault: true}
	class := func(name string, globalDefault bool) *schedulingv1.PriorityClass {
		return &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: 20, GlobalDefault: globalDefault}
	}
	tests := []struct {
		name    string
		classes []schedulingv1.PriorityClass
		a       admission.Attributes
		want    wantErr
	}{
		{"a first default", nil, admission.Attributes{Operation: admission.Create, Name: "d2", Object: class("d2", true)}, wantErr{}},
		{"a second default", []schedulingv1.PriorityClass{def}, admission.Attributes{Operation: admission.Create, Name: "d2", Object: class("d2", true)},
			forbidden(`priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already marked as default. Only one default can exist`)},
		{"made the default by an update", []schedulingv1.PriorityClass{def}, admission.Attributes{Operation: admission.Update, Name: "d2", Object: class("d2", true)},
			forbidden(`priorityclasses.scheduling.k8s.io "d2" is forbidden: PriorityClass d1 is already marked as default. Only one default can exist`)},
		{"the default updated", []schedulingv1.PriorityClass{def}, admission.Attributes{Operation: admission.Update, Name: "d1", Object: class("d1", true)}, wantErr{}},
		{"not a default", []schedulingv1.PriorityClass{def}, admission.Attributes{Operation: admission.Create, Name: "x", Object: class("x", false)}, wantErr{}},
		{"delete of a system class", nil, admission.Attributes{Operation: admission.Delete, Name: "system-node-critical", OldObject: class("system-node-critical", false)},
			forbidden(`priorityclasses.scheduling.k8s.io "system-node-critical" is forbidden: this is a system priority class and cannot be deleted`)},
		{"delete of a user class", []schedulingv1.PriorityClass{def}, admission.Attributes{Operation: admission.Delete, Name: "d1", OldObject: class("d1", true)}, wantErr{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := tt.a
			a.Resource = pcGVR
			handled, err := admission.NewPriority(classList(tt.classes...)).Validate(context.Background(), &a)
			checkErr(t, err, tt.want)
			if !handled {
				t.Error("handled = false, want true")
			}
		})
	}
}
