package controllers_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestKubectlQuotaRefusesPod: `kubectl create quota q --hard=pods=2`;
// the resource quota controller fills its status, two pods are admitted
// and charged, a third is refused by the ResourceQuota admission plugin
// with the real kube-apiserver's message; `kubectl describe quota` shows
// the usage, which follows a pod's delete. A quota on compute resources
// refuses a pod that does not set them. Every expected text is what
// kubectl v1.32 printed against the real kube-apiserver and
// kube-controller-manager v1.37.2. Skipped when kubectl is not on PATH.
func TestKubectlQuotaRefusesPod(t *testing.T) {
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	k.mustPrint(t, "resourcequota/q created\n", "create", "quota", "q", "--hard=pods=2")
	waitQuotaUsed(t, admin, "q", corev1.ResourcePods, "0")
	k.mustPrint(t, "pod/p1 created\n", "run", "p1", "--image=nginx")
	k.mustPrint(t, "pod/p2 created\n", "run", "p2", "--image=nginx")
	const refused = `Error from server (Forbidden): pods "p3" is forbidden: exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2` + "\n"
	if got := k.mustFail(t, "run", "p3", "--image=nginx"); got != refused {
		t.Errorf("kubectl run p3: stderr %q, want %q", got, refused)
	}
	describe := func(used string) string {
		return "Name:       q\nNamespace:  default\nResource    Used  Hard\n--------    ----  ----\npods        " + used + "     2\n"
	}
	k.mustPrint(t, describe("2"), "describe", "quota", "q")
	rows := table(k.must(t, "get", "quota"))[0]
	if want := []string{"NAME", "REQUEST", "LIMIT", "AGE"}; strings.Join(rows[0], " ") != strings.Join(want, " ") {
		t.Errorf("kubectl get quota: columns %q, want %q", rows[0], want)
	}
	if got := strings.Join(rows[1][:3], " "); got != "q pods: 2/2" {
		t.Errorf("kubectl get quota: row %q, want q pods: 2/2", rows[1])
	}

	k.mustPrint(t, "pod \"p1\" deleted\n", "delete", "pod", "p1")
	waitQuotaUsed(t, admin, "q", corev1.ResourcePods, "1")
	k.mustPrint(t, describe("1"), "describe", "quota", "q")
	k.mustPrint(t, "pod/p3 created\n", "run", "p3", "--image=nginx")

	k.mustPrint(t, "resourcequota/cq created\n", "create", "quota", "cq", "--hard=requests.cpu=1,limits.memory=1Gi")
	waitQuotaUsed(t, admin, "cq", corev1.ResourceRequestsCPU, "0")
	const unspecified = `Error from server (Forbidden): pods "nr" is forbidden: failed quota: cq: must specify limits.memory for: nr; requests.cpu for: nr` + "\n"
	if got := k.mustFail(t, "run", "nr", "--image=nginx"); got != unspecified {
		t.Errorf("kubectl run nr: stderr %q, want %q", got, unspecified)
	}
}

// limitRange is the LimitRange of TestKubectlLimitRangeDefaults.
const limitRange = `apiVersion: v1
kind: LimitRange
metadata:
  name: lr
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 100m
      memory: 128Mi
    max:
      cpu: "1"
`

// TestKubectlLimitRangeDefaults: with a LimitRange of default requests
// and limits and a max in the namespace, `kubectl run d` makes a pod
// whose container has the defaults and the kubernetes.io/limit-ranger
// annotation that says so (and QoS class Burstable); a pod over the max
// is refused with the real kube-apiserver's message. Skipped when kubectl is not on PATH.
func TestKubectlLimitRangeDefaults(t *testing.T) {
	c, admin := startNodes(t, 1)
	k := newKubectl(t, c)
	k.mustPrint(t, "namespace/l created\n", "create", "namespace", "l")
	waitFor(t, "the default service account of l", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().ServiceAccounts("l").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})
	if r := k.run(t, limitRange, "-n", "l", "apply", "-f", "-"); r.err != nil || r.stdout != "limitrange/lr created\n" {
		t.Fatalf("kubectl apply: %v\nstdout:\n%s\nstderr:\n%s", r.err, r.stdout, r.stderr)
	}
	rows := table(k.must(t, "-n", "l", "get", "limits"))[0]
	if len(rows) != 2 || strings.Join(rows[0], " ") != "NAME CREATED AT" || rows[1][0] != "lr" {
		t.Errorf("kubectl get limits: %q, want NAME CREATED AT and lr", rows)
	}
	k.mustPrint(t, "pod/d created\n", "-n", "l", "run", "d", "--image=nginx")
	k.mustPrint(t, "LimitRanger plugin set: cpu, memory request for container d; cpu, memory limit for container d",
		"-n", "l", "get", "pod", "d", "-o", `jsonpath={.metadata.annotations.kubernetes\.io/limit-ranger}`)
	k.mustPrint(t, `{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}}`,
		"-n", "l", "get", "pod", "d", "-o", "jsonpath={.spec.containers[0].resources}")
	k.mustPrint(t, "Burstable", "-n", "l", "get", "pod", "d", "-o", "jsonpath={.status.qosClass}")

	const tooBig = `{"spec":{"containers":[{"name":"big","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}}`
	const overMax = `Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2` + "\n"
	if got := k.mustFail(t, "-n", "l", "run", "big", "--image=nginx", "--overrides="+tooBig); got != overMax {
		t.Errorf("kubectl run big: stderr %q, want %q", got, overMax)
	}
}

// waitQuotaUsed waits until the quota's status says used of resource
// (the resource quota controller's count, or the admission's charge).
func waitQuotaUsed(t *testing.T, admin kubernetes.Interface, name string, resource corev1.ResourceName, used string) {
	t.Helper()
	waitFor(t, "quota "+name+" to count "+used+" "+string(resource), func(ctx context.Context) (bool, error) {
		q, err := admin.CoreV1().ResourceQuotas("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got, ok := q.Status.Used[resource]
		return ok && got.String() == used, nil
	})
}

// ignoreNotFound is err unless it is a NotFound.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
