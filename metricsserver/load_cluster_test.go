package metricsserver_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/metricsserver"
)

// webObjects are Deployment web (replicas nginx pods requesting 100m cpu,
// serving port 80) and Service web in front of them.
func webObjects(replicas int32) (*appsv1.Deployment, *corev1.Service) {
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx:1.27",
					Ports:     []corev1.ContainerPort{{ContainerPort: 80}},
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}}}
	s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 80, TargetPort: intstr.FromInt32(80)}}}}
	return d, s
}

// waitWebCPU waits until the metrics API reports, for each of want pods
// of web, its idle cpu plus load/want (load in millicores).
func waitWebCPU(t *testing.T, admin kubernetes.Interface, mc metricsclient.Interface, want int, load int64) {
	t.Helper()
	waitfor.Progress(t, fmt.Sprintf("%d web pods at idle + %dm/%d cpu", want, load, want), func(ctx context.Context) (bool, string, error) {
		pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, "", err
		}
		got := ""
		ok := len(pods.Items) == want
		for _, p := range pods.Items {
			m, err := mc.MetricsV1beta1().PodMetricses("default").Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil {
				got += fmt.Sprintf(" %s: %v;", p.Name, err)
				ok = false
				continue
			}
			cpu := m.Containers[0].Usage[corev1.ResourceCPU]
			wantNano := metricsserver.CPUShare("default", p.Name, "nginx")*1_000_000 + load*1_000_000/int64(want)
			got += fmt.Sprintf(" %s: %dn (want %dn);", p.Name, cpu.ScaledValue(resource.Nano), wantNano)
			ok = ok && cpu.ScaledValue(resource.Nano) == wantNano
		}
		return ok, got, nil
	}, waitfor.PollEvery(50*time.Millisecond))
}

// TestServiceLoadInCluster: in a running cluster, the metrics API reports
// a Service's kubesim.io/cpu-load on its one ready pod, spread over three
// once the Deployment has three, and none once the annotation goes.
func TestServiceLoadInCluster(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, func(cfg *cluster.Config) { cfg.AggregatorProbePeriod = 100 * time.Millisecond })
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := c.RESTConfigAs("admin")
	if err != nil {
		t.Fatal(err)
	}
	mc := metricsclient.NewForConfigOrDie(rc)
	ctx := context.Background()
	d, s := webObjects(1)
	if _, err := admin.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Services("default").Create(ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWebCPU(t, admin, mc, 1, 0)
	annotate := func(value string) {
		t.Helper()
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%s}}}`, metricsserver.CPULoadAnnotation, value)
		if _, err := admin.CoreV1().Services("default").Patch(ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	annotate(`"900m"`)
	waitWebCPU(t, admin, mc, 1, 900)
	scale := []byte(`{"spec":{"replicas":3}}`)
	if _, err := admin.AppsV1().Deployments("default").Patch(ctx, "web", types.MergePatchType, scale, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	waitWebCPU(t, admin, mc, 3, 900)
	annotate("null")
	waitWebCPU(t, admin, mc, 3, 0)
}
