package admission_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

var (
	podsGVR  = corev1.SchemeGroupVersion.WithResource("pods")
	podGVK   = corev1.SchemeGroupVersion.WithKind("Pod")
	nodesGVR = corev1.SchemeGroupVersion.WithResource("nodes")
	nodeGVK  = corev1.SchemeGroupVersion.WithKind("Node")
)

// wantErr describes the API error a request should get; the zero value
// means no error.
type wantErr struct {
	code    int32
	reason  metav1.StatusReason
	message string
}

func checkErr(t *testing.T, err error, want wantErr) {
	t.Helper()
	if want.code == 0 {
		if err != nil {
			t.Fatalf("err = %v, want none", err)
		}
		return
	}
	if err == nil {
		t.Fatalf("err = nil, want %d %s %q", want.code, want.reason, want.message)
	}
	se, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("err = %v (%T), want an API status error", err, err)
	}
	st := se.Status()
	if st.Code != want.code || st.Reason != want.reason || st.Message != want.message {
		t.Fatalf("err = %d %q %q, want %d %q %q", st.Code, st.Reason, st.Message, want.code, want.reason, want.message)
	}
}

func forbidden(msg string) wantErr {
	return wantErr{403, metav1.StatusReasonForbidden, msg}
}

func podAttrs(op admission.Operation, ns string, pod *corev1.Pod) *admission.Attributes {
	return &admission.Attributes{
		Operation: op,
		Kind:      podGVK,
		Resource:  podsGVR,
		Namespace: ns,
		Name:      pod.Name,
		Object:    pod,
	}
}

func simplePod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
	}
}
