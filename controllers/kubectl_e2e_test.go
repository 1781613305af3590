package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// rolledOut is the last line kubectl rollout status prints for web.
const rolledOut = "deployment \"web\" successfully rolled out\n"

// TestKubectlDeploymentLifecycle drives a Deployment with the real
// kubectl, as a class would: create, rollout status, scale, set image,
// rollout status, rollout undo (kubectl patches the template itself),
// expose, get endpointslices, get all, delete (the garbage collector
// removes the ReplicaSets and pods). Each step checks what kubectl
// printed and what the API then holds. Skipped when kubectl is not on
// PATH.
func TestKubectlDeploymentLifecycle(t *testing.T) {
	c, admin := startCluster(t)
	k := newKubectl(t, c)
	rollout := func(t *testing.T) {
		t.Helper()
		out := k.must(t, "rollout", "status", "deployment/web", "--timeout="+waitTimeout.String())
		if !strings.HasSuffix(out, rolledOut) {
			t.Fatalf("rollout status printed %q, want it to end in %q", out, rolledOut)
		}
	}

	k.mustPrint(t, "deployment.apps/web created\n", "create", "deployment", "web", "--image=nginx", "--replicas=3")
	rollout(t)
	wantPods(t, admin, 3, "nginx")
	k.mustPrint(t, "deployment.apps/web scaled\n", "scale", "deployment/web", "--replicas=5")
	rollout(t)
	wantPods(t, admin, 5, "nginx")
	k.mustPrint(t, "deployment.apps/web image updated\n", "set", "image", "deployment/web", "nginx=nginx:1.27")
	rollout(t)
	wantPods(t, admin, 5, "nginx:1.27")
	k.mustPrint(t, "deployment.apps/web rolled back\n", "rollout", "undo", "deployment/web")
	rollout(t)
	wantPods(t, admin, 5, "nginx")
	d, err := admin.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil || d.Spec.Template.Spec.Containers[0].Image != "nginx" || d.Annotations["deployment.kubernetes.io/revision"] != "3" {
		t.Fatalf("after the undo: %v, want image nginx at revision 3", err)
	}

	k.mustPrint(t, "service/web exposed\n", "expose", "deployment", "web", "--port=80")
	t.Run("get endpointslices", func(t *testing.T) { checkEndpointSlices(t, k, admin) })
	t.Run("get all", func(t *testing.T) { checkGetAll(t, k) })

	k.mustPrint(t, "deployment.apps \"web\" deleted\n", "delete", "deployment", "web")
	waitFor(t, "the garbage collector to remove the replicasets and pods", func(ctx context.Context) (bool, error) {
		rss, err := admin.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return false, err
		}
		pods, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		return err == nil && len(rss.Items) == 0 && len(pods.Items) == 0, err
	})
	if _, err := admin.AppsV1().Deployments("default").Get(context.Background(), "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("deployment after kubectl delete: %v, want NotFound", err)
	}
}

// wantPods waits until exactly n pods labelled app=web exist, none being
// deleted, all of them Ready and running image.
func wantPods(t *testing.T, admin kubernetes.Interface, n int, image string) {
	t.Helper()
	what := fmt.Sprintf("%d ready pods of web with image %s and no others", n, image)
	waitProgress(t, what, func(ctx context.Context) (bool, string, error) {
		list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			t.Fatalf("waiting for %s: %v", what, err)
		}
		ok, want := len(list.Items) == n, 0
		for _, p := range list.Items {
			if p.DeletionTimestamp != nil || p.Spec.Containers[0].Image != image || !podReady(&p) {
				ok = false
			} else {
				want++
			}
		}
		return ok, fmt.Sprintf("%d pods, %d of them ready with image %s and not being deleted", len(list.Items), want, image), nil
	})
}

// podReady says whether pod has the condition Ready=True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// checkEndpointSlices: once the endpointslice controller has put the five
// pods' IPs in web's slice, kubectl get endpointslices prints it with
// upstream's columns. Skipped while the manager runs no endpointslice
// controller.
func checkEndpointSlices(t *testing.T, k *kubectl, admin kubernetes.Interface) {
	if !controllerRuns(t, admin, "endpointslice-controller") {
		t.Skip("the controller manager runs no endpointslice-controller yet")
	}
	var ips []string
	waitFor(t, "web's EndpointSlice to hold the five pods' IPs", func(ctx context.Context) (bool, error) {
		list, err := admin.DiscoveryV1().EndpointSlices("default").List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
		if err != nil || len(list.Items) != 1 {
			return false, err
		}
		ips = nil
		for _, e := range list.Items[0].Endpoints {
			ips = append(ips, e.Addresses...)
		}
		return len(ips) == 5, nil
	})
	tables := table(k.must(t, "get", "endpointslices"))
	if len(tables) != 1 || strings.Join(tables[0][0], " ") != "NAME ADDRESSTYPE PORTS ENDPOINTS AGE" {
		t.Fatalf("kubectl get endpointslices: got %q, want one table with header NAME ADDRESSTYPE PORTS ENDPOINTS AGE", tables)
	}
	// The API server's own slice, written beside the kubernetes Endpoints.
	if k8s := slices.IndexFunc(tables[0], func(r []string) bool { return r[0] == "kubernetes" }); k8s < 0 || tables[0][k8s][1] != "IPv4" {
		t.Errorf("kubectl get endpointslices: no IPv4 row for the kubernetes slice in %q", tables[0])
	}
	i := slices.IndexFunc(tables[0], func(r []string) bool { return strings.HasPrefix(r[0], "web-") })
	if i < 0 {
		t.Fatalf("no row for web's slice in %q", tables[0])
	}
	// kubectl shows the first three addresses and "+ 2 more...".
	row := tables[0][i]
	if len(row) < 4 || row[1] != "IPv4" || row[2] != "80" || !strings.Contains(strings.Join(row[3:], " "), "+ 2 more...") {
		t.Fatalf("web's row %q, want IPv4, port 80 and three of %v + 2 more...", row, ips)
	}
	for _, shown := range strings.Split(row[3], ",") {
		if !slices.Contains(ips, shown) {
			t.Errorf("kubectl shows endpoint %s, not one of the pods' IPs %v", shown, ips)
		}
	}
}

// checkGetAll: kubectl get all prints the pods, services, deployments and
// replicasets, each table with kubectl's columns for it.
func checkGetAll(t *testing.T, k *kubectl) {
	tables := table(k.must(t, "get", "all"))
	want := []struct {
		header string
		rows   []string // each row's cells but the last (AGE), in order
	}{
		{"NAME READY STATUS RESTARTS AGE", nil}, // names are random: checked below
		{"NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE", []string{"service/kubernetes ClusterIP 10.96.0.1 <none> 443/TCP", "service/web ClusterIP * <none> 80/TCP"}},
		{"NAME READY UP-TO-DATE AVAILABLE AGE", []string{"deployment.apps/web 5/5 5 5"}},
		{"NAME DESIRED CURRENT READY AGE", nil},
	}
	if len(tables) != len(want) {
		t.Fatalf("kubectl get all printed %d tables, want %d:\n%q", len(tables), len(want), tables)
	}
	for i, w := range want {
		if got := strings.Join(tables[i][0], " "); got != w.header {
			t.Errorf("table %d header %q, want %q", i, got, w.header)
		}
		if w.rows == nil {
			continue
		}
		if len(tables[i]) != len(w.rows)+1 {
			t.Errorf("table %d has %d rows, want %q", i, len(tables[i])-1, w.rows)
		}
		for j, row := range tables[i][1:] {
			if j >= len(w.rows) || !cellsMatch(row[:len(row)-1], strings.Fields(w.rows[j])) {
				t.Errorf("table %d row %q, want %q", i, row, w.rows)
			}
		}
	}
	for _, row := range tables[0][1:] {
		if !strings.HasPrefix(row[0], "pod/web-") || strings.Join(row[1:4], " ") != "1/1 Running 0" {
			t.Errorf("pod row %q, want pod/web-… 1/1 Running 0", row)
		}
	}
	// Two ReplicaSets: the current one with every replica, the other
	// (nginx:1.27's, kept for history) scaled to zero.
	var rs []string
	for _, row := range tables[3][1:] {
		rs = append(rs, strings.Join(row[1:4], " "))
	}
	slices.Sort(rs)
	if len(tables[0]) != 6 || strings.Join(rs, ",") != "0 0 0,5 5 5" {
		t.Errorf("%d pods and replicasets %q, want 5 pods and replicasets 5 5 5 and 0 0 0", len(tables[0])-1, rs)
	}
}

// cellsMatch compares row with want cell by cell; "*" matches any cell.
func cellsMatch(row, want []string) bool {
	if len(row) != len(want) {
		return false
	}
	for i := range row {
		if want[i] != "*" && row[i] != want[i] {
			return false
		}
	}
	return true
}
