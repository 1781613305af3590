package kubelet_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
)

// TestCommandsAgainstCluster runs pods whose command lines end, on a
// kubelet of a real control plane: their phase and terminated states as
// the API stores them, and wget's verdict on Services, which the kubelet
// reads with its node identity (services and endpoints, as the Node
// authorizer and system:node allow).
func TestCommandsAgainstCluster(t *testing.T) {
	c := mustStartCluster(t)
	admin := adminClient(t, c)
	startKubelet(t, c, "node-1", nil)
	ctx := context.Background()
	createService(t, admin, "web", []string{"10.244.0.9"})
	createService(t, admin, "empty", nil)

	tests := []struct {
		name  string
		argv  []string
		phase corev1.PodPhase
		code  int32
		why   string
	}{
		{"hi", []string{"echo", "hi"}, corev1.PodSucceeded, 0, "Completed"},
		{"fails", []string{"sh", "-c", "echo no; exit 3"}, corev1.PodFailed, 3, "Error"},
		{"wget-web", []string{"wget", "web:80"}, corev1.PodSucceeded, 0, "Completed"},
		{"wget-empty", []string{"wget", "empty:80"}, corev1.PodFailed, 1, "Error"},
		{"wget-nothing", []string{"wget", "nothing.default.svc.cluster.local"}, corev1.PodFailed, 1, "Error"},
	}
	for _, tt := range tests {
		pod := nginxPod(tt.name, nil)
		pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		pod.Spec.Containers[0].Image = "busybox:1.36"
		pod.Spec.Containers[0].Command = tt.argv
		createBoundPod(t, admin, pod, "node-1")
	}
	for _, tt := range tests {
		var got *corev1.Pod
		waitFor(t, "pod "+tt.name+" to finish", func() (bool, error) {
			p, err := admin.CoreV1().Pods("default").Get(ctx, tt.name, metav1.GetOptions{})
			got = p
			return err == nil && (p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed), err
		})
		cs := got.Status.ContainerStatuses
		if got.Status.Phase != tt.phase || len(cs) != 1 || cs[0].State.Terminated == nil {
			t.Errorf("pod %s: phase %s, statuses %+v; want %s with a terminated container", tt.name, got.Status.Phase, cs, tt.phase)
			continue
		}
		term := cs[0].State.Terminated
		if term.ExitCode != tt.code || term.Reason != tt.why || term.StartedAt.IsZero() || term.FinishedAt.IsZero() {
			t.Errorf("pod %s: terminated %+v; want exit code %d, reason %s, start and finish times", tt.name, term, tt.code, tt.why)
		}
	}
}

// createService makes a ClusterIP Service without a selector on port 80
// and, if ready is not empty, its Endpoints with those ready addresses
// (no endpoints controller runs in this cluster).
func createService(tb testing.TB, admin kubernetes.Interface, name string, ready []string) {
	tb.Helper()
	ctx := context.Background()
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(8080)}}},
	}
	if _, err := admin.CoreV1().Services("default").Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create service %s: %v", name, err)
	}
	if len(ready) == 0 {
		return
	}
	ep := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Name: name}, Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Port: 8080}}}}}
	for _, ip := range ready {
		ep.Subsets[0].Addresses = append(ep.Subsets[0].Addresses, corev1.EndpointAddress{IP: ip})
	}
	if _, err := admin.CoreV1().Endpoints("default").Create(ctx, ep, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create endpoints %s: %v", name, err)
	}
}
