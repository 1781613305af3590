package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// storageManifest is a claim that names no class and a pod that mounts
// it, plus a pod that mounts a claim nobody made.
const storageManifest = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - {name: web, image: nginx, volumeMounts: [{name: data, mountPath: /data}]}
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data}}
---
apiVersion: v1
kind: Pod
metadata: {name: lost}
spec:
  containers:
  - {name: web, image: nginx, volumeMounts: [{name: data, mountPath: /data}]}
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: nothing}}
`

// TestKubectlStorageDefaultClass: kind's default class "standard" is
// there; a claim without a class gets it and the pvc-protection
// finalizer, and waits (WaitForFirstConsumer) until a pod uses it; then
// the scheduler selects a node, kubesim's local-path stand-in makes a
// volume there and the binder binds it, and the pod runs on that node.
// A pod that mounts a missing claim stays Pending with upstream's
// message. kubectl get pv,pvc,sc prints upstream's tables; deleting the
// pod and the claim releases the volume, which its reclaim policy
// Delete removes. Skipped when kubectl is not on PATH.
func TestKubectlStorageDefaultClass(t *testing.T) {
	c, admin := startNodes(t, 2)
	k := newKubectl(t, c)
	sc := table(k.must(t, "get", "sc"))[0]
	if want := "standard (default) rancher.io/local-path Delete WaitForFirstConsumer false"; len(sc) != 2 || len(sc[1]) < 6 || strings.Join(sc[1][:6], " ") != want {
		t.Fatalf("kubectl get sc = %q, want one row starting %q", sc, want)
	}
	claim, pods, _ := strings.Cut(storageManifest, "---\n")
	if r := k.run(t, claim, "create", "-f", "-"); r.err != nil || r.stdout != "persistentvolumeclaim/data created\n" {
		t.Fatalf("kubectl create claim: %v %q %q", r.err, r.stdout, r.stderr)
	}
	k.mustPrint(t, "standard kubernetes.io/pvc-protection Pending", "get", "pvc", "data", "-o", "jsonpath={.spec.storageClassName} {.metadata.finalizers[0]} {.status.phase}")
	waitFor(t, "the binder to wait for the claim's first consumer", func(context.Context) (bool, error) {
		return strings.Contains(k.must(t, "describe", "pvc", "data"), "waiting for first consumer to be created before binding"), nil
	})
	if r := k.run(t, pods, "create", "-f", "-"); r.err != nil || r.stdout != "pod/web created\npod/lost created\n" {
		t.Fatalf("kubectl create pods: %v %q %q", r.err, r.stdout, r.stderr)
	}
	node := waitPodRunning(t, admin, "web")
	pv := k.must(t, "get", "pvc", "data", "-o", "jsonpath={.spec.volumeName}")
	k.mustPrint(t, "Bound "+node, "get", "pvc", "data", "-o", `jsonpath={.status.phase} {.metadata.annotations.volume\.kubernetes\.io/selected-node}`)
	k.mustPrint(t, "Bound rancher.io/local-path "+node+" default/data",
		"get", "pv", pv, "-o", `jsonpath={.status.phase} {.metadata.annotations.pv\.kubernetes\.io/provisioned-by} {.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]} {.spec.claimRef.namespace}/{.spec.claimRef.name}`)
	want := `0/2 nodes are available: persistentvolumeclaim "nothing" not found. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.`
	waitFor(t, "pod lost to be unschedulable", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, "lost", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonUnschedulable {
				if c.Message != want {
					return false, fmt.Errorf("pod lost's PodScheduled message %q, want %q", c.Message, want)
				}
				return p.Status.Phase == corev1.PodPending, nil
			}
		}
		return false, nil
	})
	checkStorageTables(t, k, pv)
	k.mustPrint(t, "pod \"web\" deleted\npersistentvolumeclaim \"data\" deleted\n", "delete", "pod/web", "pvc/data")
	waitFor(t, "the released volume to be deleted", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().PersistentVolumes().Get(ctx, pv, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// checkStorageTables checks kubectl get pv,pvc,sc's three tables: their
// columns, upstream's, and the bound volume pv and claim data.
func checkStorageTables(t *testing.T, k *kubectl, pv string) {
	t.Helper()
	out := k.must(t, "get", "pv,pvc,sc")
	t.Logf("kubectl get pv,pvc,sc:\n%s", out)
	tables := table(out)
	if len(tables) != 3 {
		t.Fatalf("kubectl get pv,pvc,sc printed %d tables, want 3:\n%s", len(tables), out)
	}
	for i, want := range []struct{ header, row string }{
		{"NAME CAPACITY ACCESS MODES RECLAIM POLICY STATUS CLAIM STORAGECLASS VOLUMEATTRIBUTESCLASS REASON AGE", "persistentvolume/" + pv + " 1Gi RWO Delete Bound default/data standard <unset>"},
		{"NAME STATUS VOLUME CAPACITY ACCESS MODES STORAGECLASS VOLUMEATTRIBUTESCLASS AGE", "persistentvolumeclaim/data Bound " + pv + " 1Gi RWO standard <unset>"},
		{"NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE", "storageclass.storage.k8s.io/standard (default) rancher.io/local-path Delete WaitForFirstConsumer false"},
	} {
		rows := tables[i]
		if len(rows) != 2 || strings.Join(rows[0], " ") != want.header || !strings.HasPrefix(strings.Join(rows[1], " "), want.row+" ") {
			t.Errorf("table %d = %q, want header %q and one row starting %q", i, rows, want.header, want.row)
		}
	}
}

// waitPodRunning waits until the pod name runs and returns its node.
func waitPodRunning(t *testing.T, admin kubernetes.Interface, name string) string {
	t.Helper()
	var node string
	waitFor(t, "pod "+name+" to run", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		node = p.Spec.NodeName
		return p.Status.Phase == corev1.PodRunning, nil
	})
	return node
}
