package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/pki"
)

var (
	crdResource    = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	widgetResource = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
)

// mustDynamic is a dynamic client acting as admin.
func mustDynamic(t *testing.T, c *cluster.Cluster) dynamic.Interface {
	t.Helper()
	rc, err := c.RESTConfigAs(pki.AdminUser)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		t.Fatal(err)
	}
	return dyn
}

// mustCreateWidgetCRD creates the namespaced custom resource widgets.example.com
// and waits until one can be listed.
func mustCreateWidgetCRD(t *testing.T, dyn dynamic.Interface) {
	t.Helper()
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets.example.com"},
		"spec": map[string]any{
			"group": "example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}
	if _, err := dyn.Resource(crdResource).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	waitFor(t, "widgets served", func(ctx context.Context) (bool, error) {
		_, err := dyn.Resource(widgetResource).Namespace("default").List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})
}

// mustCreate creates one object as admin, failing the test otherwise.
func mustCreate(t *testing.T, what string, create func(ctx context.Context) error) {
	t.Helper()
	if err := create(context.Background()); err != nil {
		t.Fatalf("create %s: %v", what, err)
	}
}

// fillNamespace creates namespace ns with a bare pod, a configmap, a
// Deployment of two pods (rolled out) and a Widget.
func fillNamespace(t *testing.T, admin kubernetes.Interface, dyn dynamic.Interface, ns string) {
	t.Helper()
	mustCreate(t, "namespace", func(ctx context.Context) error {
		_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, "pod", func(ctx context.Context) error {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "solo"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox:1.36"}}}}
		_, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, "configmap", func(ctx context.Context) error {
		_, err := admin.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}}, metav1.CreateOptions{})
		return err
	})
	d := newDeployment("web", 2)
	d.Namespace = ns
	mustCreate(t, "deployment", func(ctx context.Context) error {
		_, err := admin.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
		return err
	})
	mustCreate(t, "widget", func(ctx context.Context) error {
		w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
			"metadata": map[string]any{"name": "gadget"}, "spec": map[string]any{"size": int64(3)}}}
		_, err := dyn.Resource(widgetResource).Namespace(ns).Create(ctx, w, metav1.CreateOptions{})
		return err
	})
	waitProgress(t, "three pods running in "+ns, func(ctx context.Context) (bool, string, error) {
		pods, err := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("waiting for three pods running in %s: %v", ns, err)
		}
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		return running == 3, fmt.Sprintf("%d of %d pods running", running, len(pods.Items)), nil
	})
}

// contentOf counts what is left in ns of what fillNamespace made: pods,
// configmaps (not the root-ca-cert-publisher's kube-root-ca.crt),
// deployments, replicasets and widgets.
func contentOf(ctx context.Context, admin kubernetes.Interface, dyn dynamic.Interface, ns string) (string, error) {
	pods, err := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	cms, err := admin.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	ds, err := admin.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	rss, err := admin.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	ws, err := dyn.Resource(widgetResource).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	ours := slices.DeleteFunc(cms.Items, func(cm corev1.ConfigMap) bool { return cm.Name == "kube-root-ca.crt" })
	return fmt.Sprintf("pods %d, configmaps %d, deployments %d, replicasets %d, widgets %d",
		len(pods.Items), len(ours), len(ds.Items), len(rss.Items), len(ws.Items)), nil
}

// namespaceCondition returns "Status Reason: Message" of ns's condition t.
func namespaceCondition(ns *corev1.Namespace, t corev1.NamespaceConditionType) string {
	for _, c := range ns.Status.Conditions {
		if c.Type == t {
			return string(c.Status) + " " + c.Reason + ": " + c.Message
		}
	}
	return "absent"
}

// TestNamespaceDeleteEmptiesThenRemoves: a deleted namespace goes
// Terminating; the namespace controller deletes its pods, configmaps,
// Deployment (and so ReplicaSet) and custom resources; a configmap held
// by a finalizer keeps it, with upstream's conditions saying what
// remains and which finalizer holds it; once that finalizer goes, so
// does the namespace.
func TestNamespaceDeleteEmptiesThenRemoves(t *testing.T) {
	c, admin := startCluster(t)
	dyn := mustDynamic(t, c)
	mustCreateWidgetCRD(t, dyn)
	fillNamespace(t, admin, dyn, "team")
	mustCreate(t, "held configmap", func(ctx context.Context) error {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}
		_, err := admin.CoreV1().ConfigMaps("team").Create(ctx, cm, metav1.CreateOptions{})
		return err
	})
	ctx := context.Background()
	if err := admin.CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, err := admin.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("namespace right after delete: %v (err %v), want Terminating", ns, err)
	}
	wantConds := map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "False ResourcesDiscovered: All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "False ParsedGroupVersions: All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "False ContentDeleted: All content successfully deleted, may be waiting on finalization",
		corev1.NamespaceContentRemaining:         "True SomeResourcesRemain: Some resources are remaining: configmaps. has 1 resource instances",
		corev1.NamespaceFinalizersRemaining:      "True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	waitFor(t, "the conditions of a namespace held by one configmap", func(ctx context.Context) (bool, error) {
		ns, err = admin.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return namespaceCondition(ns, corev1.NamespaceContentRemaining) == wantConds[corev1.NamespaceContentRemaining], nil
	})
	for typ, want := range wantConds {
		if got := namespaceCondition(ns, typ); got != want {
			t.Errorf("condition %s:\ngot  %s\nwant %s", typ, got, want)
		}
	}
	if got, err := contentOf(ctx, admin, dyn, "team"); err != nil || got != "pods 0, configmaps 1, deployments 0, replicasets 0, widgets 0" {
		t.Errorf("content while held: %s (err %v), want only the held configmap", got, err)
	}
	held, err := admin.CoreV1().ConfigMaps("team").Get(ctx, "held", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	held.Finalizers = nil
	if _, err := admin.CoreV1().ConfigMaps("team").Update(ctx, held, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "namespace team gone", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}

// TestNamespaceDeletePodsFirst: the controller deletes a namespace's
// pods first and the rest only once none is left (upstream's order in
// v1.37): a pod held by a finalizer keeps the configmap, the
// Deployment and the widget; released, everything goes.
func TestNamespaceDeletePodsFirst(t *testing.T) {
	c, admin := startCluster(t)
	dyn := mustDynamic(t, c)
	mustCreateWidgetCRD(t, dyn)
	fillNamespace(t, admin, dyn, "team")
	ctx := context.Background()
	solo, err := admin.CoreV1().Pods("team").Get(ctx, "solo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	solo.Finalizers = []string{"example.com/hold"}
	if _, err := admin.CoreV1().Pods("team").Update(ctx, solo, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := admin.CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "every pod but the held one gone", func(ctx context.Context) (bool, error) {
		pods, err := admin.CoreV1().Pods("team").List(ctx, metav1.ListOptions{})
		return err == nil && len(pods.Items) == 1 && pods.Items[0].Name == "solo" && pods.Items[0].DeletionTimestamp != nil, err
	})
	if got, err := contentOf(ctx, admin, dyn, "team"); err != nil || got != "pods 1, configmaps 1, deployments 1, replicasets 1, widgets 1" {
		t.Errorf("content while a pod is held: %s (err %v), want everything but the Deployment's pods", got, err)
	}
	solo, err = admin.CoreV1().Pods("team").Get(ctx, "solo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	solo.Finalizers = nil
	if _, err := admin.CoreV1().Pods("team").Update(ctx, solo, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "namespace team gone", func(ctx context.Context) (bool, error) {
		_, err := admin.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
