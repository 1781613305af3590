package admission_test

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/admission"
)

func TestDefaultTolerationSeconds(t *testing.T) {
	notReady := corev1.Toleration{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	unreachable := corev1.Toleration{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)}
	notReadyField := "spec.tolerations[+]=node.kubernetes.io/not-ready:NoExecute for 300s"
	unreachableField := "spec.tolerations[+]=node.kubernetes.io/unreachable:NoExecute for 300s"
	other := corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule}

	tests := []struct {
		name        string
		op          admission.Operation
		subresource string
		have        []corev1.Toleration
		want        []corev1.Toleration
		wantFields  []string
		wantHandled bool
	}{
		{"none: both added", admission.Create, "", nil, []corev1.Toleration{notReady, unreachable}, []string{notReadyField, unreachableField}, true},
		{"other tolerations are kept", admission.Create, "", []corev1.Toleration{other},
			[]corev1.Toleration{other, notReady, unreachable}, []string{notReadyField, unreachableField}, true},
		{"own not-ready toleration is left alone", admission.Create, "",
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)}},
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](5)}, unreachable},
			[]string{unreachableField}, true},
		{"a key-only toleration (any effect) counts", admission.Create, "",
			[]corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}},
			[]corev1.Toleration{{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists}, notReady},
			[]string{notReadyField}, true},
		{"a NoSchedule toleration of the key does not count", admission.Create, "",
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}, notReady, unreachable},
			[]string{notReadyField, unreachableField}, true},
		{"tolerate everything", admission.Create, "", []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			[]corev1.Toleration{{Operator: corev1.TolerationOpExists}}, nil, true},
		{"update puts them back", admission.Update, "", nil, []corev1.Toleration{notReady, unreachable}, []string{notReadyField, unreachableField}, true},
		{"update that keeps them", admission.Update, "", []corev1.Toleration{notReady, unreachable}, []corev1.Toleration{notReady, unreachable}, nil, true},
		{"status subresource is skipped", admission.Update, "status", nil, nil, nil, false},
		{"delete is skipped", admission.Delete, "", nil, nil, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := simplePod("p")
			pod.Spec.Tolerations = tt.have
			a := podAttrs(tt.op, "default", pod)
			a.Subresource = tt.subresource
			fields, handled, err := admission.NewDefaultTolerationSeconds().Admit(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if handled != tt.wantHandled {
				t.Errorf("handled = %v, want %v", handled, tt.wantHandled)
			}
			if !reflect.DeepEqual(fields, tt.wantFields) {
				t.Errorf("fields = %q, want %q", fields, tt.wantFields)
			}
			if !reflect.DeepEqual(pod.Spec.Tolerations, tt.want) {
				t.Errorf("tolerations = %+v, want %+v", pod.Spec.Tolerations, tt.want)
			}
		})
	}
}

func TestDefaultTolerationSecondsIgnoresOtherResources(t *testing.T) {
	a := &admission.Attributes{Operation: admission.Create, Kind: nodeGVK, Resource: nodesGVR, Name: "n",
		Object: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}}
	fields, handled, err := admission.NewDefaultTolerationSeconds().Admit(context.Background(), a)
	if fields != nil || handled || err != nil {
		t.Errorf("got %v %v %v, want skipped", fields, handled, err)
	}
}

func TestDefaultTolerationSecondsWrongType(t *testing.T) {
	a := &admission.Attributes{Operation: admission.Create, Resource: podsGVR, Object: &corev1.Node{}}
	_, _, err := admission.NewDefaultTolerationSeconds().Admit(context.Background(), a)
	checkErr(t, err, wantErr{400, metav1.StatusReasonBadRequest, "expected *api.Pod but got *v1.Node"})
}

func TestDefaultTolerationSecondsCustomSeconds(t *testing.T) {
	d := &admission.DefaultTolerationSeconds{NotReadySeconds: 30, UnreachableSeconds: 60}
	pod := simplePod("p")
	fields, _, err := d.Admit(context.Background(), podAttrs(admission.Create, "default", pod))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"spec.tolerations[+]=node.kubernetes.io/not-ready:NoExecute for 30s", "spec.tolerations[+]=node.kubernetes.io/unreachable:NoExecute for 60s"}
	if !reflect.DeepEqual(fields, want) || *pod.Spec.Tolerations[1].TolerationSeconds != 60 {
		t.Errorf("fields = %q, tolerations %+v", fields, pod.Spec.Tolerations)
	}
}
