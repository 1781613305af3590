package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// evictAnswer is what the API server answered one eviction: its HTTP
// status and, for a refusal, the error with its Status (whose causes say
// which disruption budget refused, and why).
type evictAnswer struct {
	status int
	err    error // nil for a 2xx
}

// evictPod sends one eviction of pod, as kubectl drain's EvictPod does
// with policy/v1: POST pods/<name>/eviction with an Eviction named after
// the pod and empty DeleteOptions (kubectl drain's default
// --grace-period=-1 sends none, so the pod's own grace period applies).
// An error without an HTTP status (the request never got an answer) is
// returned as the error.
func evictPod(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) (evictAnswer, error) {
	ev := &policyv1.Eviction{
		TypeMeta:      metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"},
		ObjectMeta:    metav1.ObjectMeta{Name: pod.Name, Namespace: pod.Namespace},
		DeleteOptions: &metav1.DeleteOptions{},
	}
	body, err := json.Marshal(ev)
	if err != nil {
		return evictAnswer{}, err
	}
	var code int
	err = cs.CoreV1().RESTClient().Post().Namespace(pod.Namespace).Resource("pods").Name(pod.Name).
		SubResource("eviction").SetHeader("Content-Type", "application/json").Body(body).
		Do(ctx).StatusCode(&code).Error()
	var se apierrors.APIStatus
	if err != nil && !asAPIStatus(err, &se) {
		return evictAnswer{}, err
	}
	return evictAnswer{status: code, err: err}, nil
}

// asAPIStatus reports whether err carries an API Status, setting *se.
func asAPIStatus(err error, se *apierrors.APIStatus) bool {
	return errors.As(err, se)
}

// statusText is an API error as the step's message: its message, then
// each cause's (what kubectl prints is only the first part; the causes
// name the disruption budget and its figures).
func statusText(err error) string {
	var se apierrors.APIStatus
	if !asAPIStatus(err, &se) {
		return err.Error()
	}
	st := se.Status()
	parts := []string{st.Message}
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			parts = append(parts, string(c.Type)+": "+c.Message)
		}
	}
	return strings.Join(parts, " ")
}
