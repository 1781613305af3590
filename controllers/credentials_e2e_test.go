package controllers_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
)

// TestReplicaSetPodsCreatedByItsServiceAccount: the API server's traces
// of the creates of a ReplicaSet's pods show the user
// system:serviceaccount:kube-system:replicaset-controller (a token the
// manager asked for), in the service account groups; the manager's own
// user is not in system:masters.
func TestReplicaSetPodsCreatedByItsServiceAccount(t *testing.T) {
	c, admin := startCluster(t)
	sub := c.Recorder.Subscribe(1 << 16)
	defer sub.Close()
	ctx := context.Background()
	three := int32(3)
	labels := map[string]string{"app": "sa-check"}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "sa-check", Namespace: "default"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &three, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}}}}
	if _, err := admin.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReplicaSetReady(t, admin, "sa-check", 3)

	creates := podCreateTraces(t, sub, "sa-check-", 3)
	const want = "system:serviceaccount:kube-system:replicaset-controller"
	for name, tr := range creates {
		if tr.User != want || tr.Code != 201 {
			t.Errorf("create of %s: user %q code %d, want %q 201", name, tr.User, tr.Code, want)
		}
		for _, g := range []string{"system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"} {
			if !slices.Contains(tr.Groups, g) {
				t.Errorf("create of %s: groups %v, want %s among them", name, tr.Groups, g)
			}
		}
	}
	for _, p := range podsOf(t, admin, "sa-check") {
		if _, ok := creates[p.Name]; !ok {
			t.Errorf("pod %s: no trace of its create among %d", p.Name, len(creates))
		}
	}
	assertManagerNotMaster(t, c.RESTConfigAs)
}

// podCreateTraces reads sub until it has seen n finished pod creates
// whose pods are named prefix..., and returns their traces by pod name.
func podCreateTraces(t *testing.T, sub *flow.Subscription, prefix string, n int) map[string]*flow.RequestTrace {
	t.Helper()
	found := map[string]*flow.RequestTrace{}
	deadline := time.After(waitTimeout)
	for len(found) < n {
		select {
		case ev := <-sub.Events():
			r := ev.Request
			if r != nil && ev.Stage == 0 && r.Method == "POST" && strings.HasSuffix(r.URI, "/namespaces/default/pods") &&
				strings.HasPrefix(ev.Object.Name, prefix) {
				found[ev.Object.Name] = r
			}
		case <-deadline:
			t.Fatalf("%d traces of pod creates %s* (dropped %d events), want %d", len(found), prefix, sub.Dropped(), n)
		}
	}
	return found
}

// assertManagerNotMaster checks, through a SelfSubjectReview, that the
// manager's own user has no group but system:authenticated.
func assertManagerNotMaster(t *testing.T, restConfigAs func(string) (*rest.Config, error)) {
	t.Helper()
	rc, err := restConfigAs(pki.ControllerManagerUser)
	if err != nil {
		t.Fatal(err)
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(context.Background(), &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u := review.Status.UserInfo; u.Username != pki.ControllerManagerUser || !slices.Equal(u.Groups, []string{"system:authenticated"}) {
		t.Errorf("manager is %q in %v, want %q in [system:authenticated]", u.Username, u.Groups, pki.ControllerManagerUser)
	}
}
