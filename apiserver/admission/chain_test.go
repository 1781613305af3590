package admission_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// step is a scripted plugin: it records that it ran, then answers with
// its fields, handled and err. It handles the operations ops (every
// operation if ops is nil).
type step struct {
	name    string
	fields  []string
	handled bool
	err     error
	ran     *[]string
	ops     []admission.Operation
}

func (s step) Name() string { return s.name }

func (s step) Handles(op admission.Operation) bool { return s.ops == nil || slices.Contains(s.ops, op) }

func (s step) Admit(context.Context, *admission.Attributes) ([]string, bool, error) {
	*s.ran = append(*s.ran, s.name)
	return s.fields, s.handled, s.err
}

func (s step) Validate(context.Context, *admission.Attributes) (bool, error) {
	*s.ran = append(*s.ran, s.name)
	return s.handled, s.err
}

func TestChainAdmit(t *testing.T) {
	denied := apierrors.NewForbidden(corev1.Resource("pods"), "p", errors.New("no"))
	tests := []struct {
		name         string
		steps        []step
		wantRan      []string
		wantOutcomes []admission.Outcome
		want         wantErr
	}{
		{"every plugin, in order", []step{
			{name: "A", handled: false},
			{name: "B", handled: true},
			{name: "C", handled: true, fields: []string{"spec.x=1"}},
		}, []string{"A", "B", "C"}, []admission.Outcome{
			{Plugin: "A", Phase: "mutating", Action: "skipped"},
			{Plugin: "B", Phase: "mutating", Action: "passed"},
			{Plugin: "C", Phase: "mutating", Action: "defaulted", Fields: []string{"spec.x=1"}},
		}, wantErr{}},
		{"stops at the first error", []step{
			{name: "A", handled: true, fields: []string{"spec.x=1"}},
			{name: "B", handled: true, err: denied},
			{name: "C", handled: true},
		}, []string{"A", "B"}, []admission.Outcome{
			{Plugin: "A", Phase: "mutating", Action: "defaulted", Fields: []string{"spec.x=1"}},
			{Plugin: "B", Phase: "mutating", Action: "rejected", Message: `pods "p" is forbidden: no`},
		}, forbidden(`pods "p" is forbidden: no`)},
		{"a plain error becomes kube-apiserver's 500", []step{
			{name: "A", handled: true, err: errors.New("lister not synced")},
		}, []string{"A"}, []admission.Outcome{
			{Plugin: "A", Phase: "mutating", Action: "rejected", Message: "lister not synced"},
		}, wantErr{500, metav1.StatusReasonUnknown, "lister not synced"}},
		{"a plugin that does not handle the operation is not run", []step{
			{name: "A", handled: true, ops: []admission.Operation{admission.Update}},
			{name: "B", handled: false, ops: []admission.Operation{admission.Create}},
		}, []string{"B"}, []admission.Outcome{
			{Plugin: "B", Phase: "mutating", Action: "skipped"},
		}, wantErr{}},
		{"empty chain", nil, nil, []admission.Outcome{}, wantErr{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ran []string
			c := &admission.Chain{}
			for _, s := range tt.steps {
				s.ran = &ran
				c.Mutating = append(c.Mutating, s)
			}
			outcomes, err := c.Admit(context.Background(), &admission.Attributes{Operation: admission.Create})
			checkErr(t, err, tt.want)
			if !reflect.DeepEqual(ran, tt.wantRan) {
				t.Errorf("ran %v, want %v", ran, tt.wantRan)
			}
			if !reflect.DeepEqual(outcomes, tt.wantOutcomes) {
				t.Errorf("outcomes:\n got %+v\nwant %+v", outcomes, tt.wantOutcomes)
			}
		})
	}
}

func TestChainValidate(t *testing.T) {
	var ran []string
	c := &admission.Chain{Validating: []admission.ValidatingPlugin{
		step{name: "A", handled: true, ran: &ran},
		step{name: "B", handled: false, ran: &ran},
		step{name: "C", handled: true, err: apierrors.NewNotFound(corev1.Resource("namespaces"), "x"), ran: &ran},
		step{name: "D", handled: true, ran: &ran},
	}}
	outcomes, err := c.Validate(context.Background(), &admission.Attributes{Operation: admission.Delete})
	checkErr(t, err, wantErr{404, metav1.StatusReasonNotFound, `namespaces "x" not found`})
	want := []admission.Outcome{
		{Plugin: "A", Phase: "validating", Action: "passed"},
		{Plugin: "B", Phase: "validating", Action: "skipped"},
		{Plugin: "C", Phase: "validating", Action: "rejected", Message: `namespaces "x" not found`},
	}
	if !reflect.DeepEqual(outcomes, want) || !reflect.DeepEqual(ran, []string{"A", "B", "C"}) {
		t.Errorf("outcomes %+v (ran %v), want %+v", outcomes, ran, want)
	}
}

func TestNilChain(t *testing.T) {
	var c *admission.Chain
	if o, err := c.Admit(context.Background(), &admission.Attributes{}); o != nil || err != nil {
		t.Errorf("Admit = %v %v", o, err)
	}
	if o, err := c.Validate(context.Background(), &admission.Attributes{}); o != nil || err != nil {
		t.Errorf("Validate = %v %v", o, err)
	}
}

// TestChainWithPlugins runs the real plugins in kube-apiserver's order on
// a pod create, as a write handler would.
func TestChainWithPlugins(t *testing.T) {
	ns := &fakeNamespaces{phases: map[string]corev1.NamespacePhase{"default": corev1.NamespaceActive, "going": corev1.NamespaceTerminating}}
	c := &admission.Chain{
		Mutating: []admission.MutatingPlugin{
			admission.NewNamespaceLifecycle(ns), admission.NewNodeRestriction(),
			admission.NewPriority(classList()), admission.NewDefaultTolerationSeconds(),
		},
		Validating: []admission.ValidatingPlugin{admission.NewPriority(classList())},
	}
	pod := simplePod("web")
	a := podAttrs(admission.Create, "default", pod)
	a.User = admission.UserInfo{Name: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"}}
	mut, err := c.Admit(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	val, err := c.Validate(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	want := []admission.Outcome{
		{Plugin: "NamespaceLifecycle", Phase: "mutating", Action: "passed"},
		{Plugin: "NodeRestriction", Phase: "mutating", Action: "skipped"},
		{Plugin: "Priority", Phase: "mutating", Action: "defaulted", Fields: []string{"spec.priority=0", "spec.preemptionPolicy=PreemptLowerPriority"}},
		{Plugin: "DefaultTolerationSeconds", Phase: "mutating", Action: "defaulted", Fields: []string{
			"spec.tolerations[+]=node.kubernetes.io/not-ready:NoExecute for 300s",
			"spec.tolerations[+]=node.kubernetes.io/unreachable:NoExecute for 300s",
		}},
		{Plugin: "Priority", Phase: "validating", Action: "skipped"},
	}
	if got := append(mut, val...); !reflect.DeepEqual(got, want) {
		t.Errorf("outcomes:\n got %+v\nwant %+v", got, want)
	}
	if pod.Spec.Priority == nil || len(pod.Spec.Tolerations) != 2 {
		t.Errorf("pod not mutated: %+v", pod.Spec)
	}

	// The same pod into a terminating namespace is rejected by the
	// mutating phase, first.
	a = podAttrs(admission.Create, "going", simplePod("web"))
	mut, err = c.Admit(context.Background(), a)
	checkErr(t, err, forbidden(`pods "web" is forbidden: unable to create new content in namespace going because it is being terminated`))
	if len(mut) != 1 || mut[0].Plugin != admission.NamespaceLifecycleName || mut[0].Action != admission.ActionRejected {
		t.Errorf("outcomes = %+v, want NamespaceLifecycle rejected only", mut)
	}
}
