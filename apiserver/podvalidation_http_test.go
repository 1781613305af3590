package apiserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodValidationOverHTTP sends invalid pods to the API and checks the
// answer kubectl would print: 422, reason Invalid, kube-apiserver's
// aggregate message and one cause per field.
func TestPodValidationOverHTTP(t *testing.T) {
	ts := startServer(t)

	t.Run("create", func(t *testing.T) {
		body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"restartPolicy":"Sometimes","containers":[` +
			`{"name":"web"},{"name":"web","image":"nginx","ports":[{"containerPort":70000}]}]}}`
		before := etcdRevision(t, ts.etcd)
		code, out := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", body)
		if code != 422 {
			t.Fatalf("code = %d, want 422; body %.500s", code, out)
		}
		var st metav1.Status
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("body is not a Status: %v: %.300s", err, out)
		}
		wantMsg := `Pod "x" is invalid: [spec.containers[0].image: Required value, ` +
			`spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive, ` +
			`spec.containers[1].name: Duplicate value: "web", ` +
			`spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"]`
		if st.Kind != "Status" || st.Status != metav1.StatusFailure || st.Code != 422 || st.Reason != metav1.StatusReasonInvalid || st.Message != wantMsg {
			t.Errorf("status = %s %s %d %q\nmessage %q\nwant    %q", st.Kind, st.Status, st.Code, st.Reason, st.Message, wantMsg)
		}
		wantCauses := []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldValueRequired, Message: "Required value", Field: "spec.containers[0].image"},
			{Type: metav1.CauseTypeFieldValueInvalid, Message: "Invalid value: 70000: must be between 1 and 65535, inclusive", Field: "spec.containers[1].ports[0].containerPort"},
			{Type: metav1.CauseTypeFieldValueDuplicate, Message: `Duplicate value: "web"`, Field: "spec.containers[1].name"},
			{Type: metav1.CauseTypeFieldValueNotSupported, Message: `Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"`, Field: "spec.restartPolicy"},
		}
		if st.Details == nil || st.Details.Kind != "Pod" || st.Details.Name != "x" || len(st.Details.Causes) != len(wantCauses) {
			t.Fatalf("details = %+v, want kind Pod, name x and %d causes", st.Details, len(wantCauses))
		}
		for i, want := range wantCauses {
			if st.Details.Causes[i] != want {
				t.Errorf("cause %d = %+v, want %+v", i, st.Details.Causes[i], want)
			}
		}
		if after := etcdRevision(t, ts.etcd); after != before {
			t.Errorf("etcd revision moved %d -> %d: a rejected pod was written", before, after)
		}
	})

	t.Run("client-go sees an Invalid error", func(t *testing.T) {
		p := testPod("no-containers", nil)
		p.Spec.Containers = nil
		_, err := ts.client.CoreV1().Pods("default").Create(context.Background(), p, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || err.Error() != `Pod "no-containers" is invalid: spec.containers: Required value` {
			t.Fatalf("err = %v, want Invalid: spec.containers: Required value", err)
		}
	})

	t.Run("update may change only images", func(t *testing.T) {
		p := mustCreatePod(t, ts.client, "default", testPod("web", nil))
		p.Spec.Containers[0].Image = "nginx:1.28"
		p, err := ts.client.CoreV1().Pods("default").Update(context.Background(), p, metav1.UpdateOptions{})
		if err != nil {
			t.Fatalf("image update: %v", err)
		}
		p.Spec.RestartPolicy = corev1.RestartPolicyNever
		_, err = ts.client.CoreV1().Pods("default").Update(context.Background(), p, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) {
			t.Fatalf("err = %v, want Invalid", err)
		}
		se := err.(*apierrors.StatusError)
		// The diff is upstream's, of its internal type: Go field names.
		prefix := `Pod "web" is invalid: spec: Forbidden: pod updates may not change fields other than ` +
			"`spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n"
		if !strings.HasPrefix(se.ErrStatus.Message, prefix) || !strings.Contains(se.ErrStatus.Message, `+ "RestartPolicy": "Never",`) {
			t.Errorf("message = %q, want the updatable list and a diff", se.ErrStatus.Message)
		}
		if c := se.ErrStatus.Details.Causes; len(c) != 1 || c[0].Field != "spec" || c[0].Type != metav1.CauseTypeForbidden {
			t.Errorf("causes = %+v, want one Forbidden on spec", c)
		}
	})

	t.Run("status update", func(t *testing.T) {
		p, err := ts.client.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Status.PodIP = "10.244.0.300"
		_, err = ts.client.CoreV1().Pods("default").UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		if !apierrors.IsInvalid(err) || err.Error() != `Pod "web" is invalid: status.podIPs[0]: Invalid value: "10.244.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)` {
			t.Fatalf("err = %v, want an invalid pod IP", err)
		}
		p.Status.PodIP = "10.244.0.30"
		if _, err := ts.client.CoreV1().Pods("default").UpdateStatus(context.Background(), p, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("valid status update: %v", err)
		}
	})
}
