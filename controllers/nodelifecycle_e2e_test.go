package controllers_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/kubelet"
)

// nodeFailureSpeed is the speed of the node failure tests: the grace
// period is 2.5 s, a Lease is renewed every 0.5 s.
const nodeFailureSpeed = 20

// startNodeFailureCluster starts three nodes at nodeFailureSpeed.
func startNodeFailureCluster(t *testing.T) (*cluster.Cluster, kubernetes.Interface) {
	t.Helper()
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.MetricsServer = false
		cfg.Speed = nodeFailureSpeed
	})
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	return c, admin
}

// tolerateUnreachable makes the template's pods tolerate the NoExecute
// unreachable and not-ready taints for seconds (nil: forever).
func tolerateUnreachable(tmpl *corev1.PodTemplateSpec, seconds *int64) {
	for _, key := range []string{corev1.TaintNodeUnreachable, corev1.TaintNodeNotReady} {
		tmpl.Spec.Tolerations = append(tmpl.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds})
	}
}

func getNode(ctx context.Context, admin kubernetes.Interface, name string) (*corev1.Node, error) {
	return admin.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}

func nodeHasTaint(n *corev1.Node, key string, effect corev1.TaintEffect) bool {
	for _, t := range n.Spec.Taints {
		if t.Key == key && t.Effect == effect {
			return true
		}
	}
	return false
}

func podCondition(p *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == t {
			return &p.Status.Conditions[i]
		}
	}
	return nil
}

// waitNodeUnknown waits until every condition the kubelet posted is
// Unknown with upstream's reason and message, and the node has both
// unreachable taints.
func waitNodeUnknown(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	waitFor(t, "node "+name+" Unknown", func(ctx context.Context) (bool, error) {
		n, err := getNode(ctx, admin, name)
		if err != nil {
			return false, err
		}
		for _, ct := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
			c := conditionOfNode(n, ct)
			if c == nil || c.Status != corev1.ConditionUnknown {
				return false, nil
			}
			if c.Reason != controllers.ReasonNodeStatusUnknown || c.Message != controllers.MessageNodeStatusUnknown {
				return false, fmt.Errorf("%s Unknown with reason %q, message %q", ct, c.Reason, c.Message)
			}
		}
		return true, nil
	})
	waitFor(t, "node "+name+" tainted unreachable", func(ctx context.Context) (bool, error) {
		n, err := getNode(ctx, admin, name)
		if err != nil {
			return false, err
		}
		return nodeHasTaint(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute) &&
			nodeHasTaint(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoSchedule), nil
	})
}

func conditionOfNode(n *corev1.Node, t corev1.NodeConditionType) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == t {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// waitNodeHealthy waits until the node is Ready with none of the node
// lifecycle controller's taints.
func waitNodeHealthy(t *testing.T, admin kubernetes.Interface, name string) {
	t.Helper()
	waitFor(t, "node "+name+" Ready and untainted", func(ctx context.Context) (bool, error) {
		n, err := getNode(ctx, admin, name)
		if err != nil {
			return false, err
		}
		c := conditionOfNode(n, corev1.NodeReady)
		return c != nil && c.Status == corev1.ConditionTrue && len(n.Spec.Taints) == 0, nil
	})
}

// podsOnNode lists the pods labelled app=name bound to node, deleted or
// not.
func podsOnNode(ctx context.Context, admin kubernetes.Interface, app, node string) ([]corev1.Pod, error) {
	list, err := admin.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out, nil
}

// TestNodeFailureEvictsAndReplaces stops the kubelet of a node that runs
// a Deployment's pod: the node goes Unknown and is tainted, the pod is
// marked not ready, then deleted when its toleration runs out; it stays
// Terminating (nobody is there to stop it) while the ReplicaSet's
// replacement runs Ready elsewhere. The kubelet's return removes the
// taints, and the old pod goes for good.
func TestNodeFailureEvictsAndReplaces(t *testing.T) {
	c, admin := startNodeFailureCluster(t)
	d := newDeployment("web", 2)
	seconds := int64(20)
	tolerateUnreachable(&d.Spec.Template, &seconds)
	mustCreateDeployment(t, admin, d)
	waitRolledOut(t, admin, "web")
	victim := podsOf(t, admin, "web")[0]
	node := victim.Spec.NodeName
	if err := c.StopKubelet(node); err != nil {
		t.Fatal(err)
	}
	waitNodeUnknown(t, admin, node)
	waitFor(t, "pod "+victim.Name+" deleted by the taint eviction controller", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		ready, target := podCondition(p, corev1.PodReady), podCondition(p, corev1.DisruptionTarget)
		return p.DeletionTimestamp != nil && ready != nil && ready.Status == corev1.ConditionFalse &&
			target != nil && target.Reason == controllers.ReasonDeletionByTaintManager, nil
	})
	waitFor(t, "TaintManagerEviction event", func(ctx context.Context) (bool, error) {
		return hasEvent(ctx, admin, victim.Name, "TaintManagerEviction", "Marking for deletion Pod default/"+victim.Name)
	})
	waitProgress(t, "two Ready pods of web on other nodes", func(ctx context.Context) (bool, string, error) {
		ready, pods := 0, podsOf(t, admin, "web")
		for _, p := range pods {
			if p.Spec.NodeName == node {
				t.Fatalf("waiting for two Ready pods of web on other nodes: pod %s scheduled onto the failed node %s", p.Name, node)
			}
			if cond := podCondition(&p, corev1.PodReady); cond != nil && cond.Status == corev1.ConditionTrue {
				ready++
			}
		}
		return ready == 2, fmt.Sprintf("%d of %d pods Ready", ready, len(pods)), nil
	})
	if _, err := admin.CoreV1().Pods("default").Get(context.Background(), victim.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the evicted pod on the stopped node: %v, want it still there (Terminating)", err)
	}
	if err := c.StartKubelet(kubelet.DefaultNodeSpec(node)); err != nil {
		t.Fatal(err)
	}
	waitNodeHealthy(t, admin, node)
	waitFor(t, "the evicted pod gone once its kubelet is back", func(ctx context.Context) (bool, error) {
		pods, err := podsOnNode(ctx, admin, "web", node)
		return len(pods) == 0, err
	})
}

// TestNodeBackBeforeEviction stops the kubelet of a node whose pod
// tolerates unreachable forever: the pod is marked not ready but stays,
// and when the kubelet comes back the taints go and the pod is Ready
// again on the same node.
func TestNodeBackBeforeEviction(t *testing.T) {
	c, admin := startNodeFailureCluster(t)
	d := newDeployment("db", 1)
	tolerateUnreachable(&d.Spec.Template, nil)
	mustCreateDeployment(t, admin, d)
	waitRolledOut(t, admin, "db")
	pod := podsOf(t, admin, "db")[0]
	if err := c.StopKubelet(pod.Spec.NodeName); err != nil {
		t.Fatal(err)
	}
	waitNodeUnknown(t, admin, pod.Spec.NodeName)
	waitFor(t, "pod "+pod.Name+" not ready", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		cond := podCondition(p, corev1.PodReady)
		return cond != nil && cond.Status == corev1.ConditionFalse, nil
	})
	waitFor(t, "NodeNotReady events", func(ctx context.Context) (bool, error) {
		podEvent, err := hasEvent(ctx, admin, pod.Name, "NodeNotReady", "Node is not ready")
		if err != nil || !podEvent {
			return false, err
		}
		return hasEvent(ctx, admin, pod.Spec.NodeName, "NodeNotReady", "status is now: NodeNotReady")
	})
	if err := c.StartKubelet(kubelet.DefaultNodeSpec(pod.Spec.NodeName)); err != nil {
		t.Fatal(err)
	}
	waitNodeHealthy(t, admin, pod.Spec.NodeName)
	waitFor(t, "pod "+pod.Name+" Ready again", func(ctx context.Context) (bool, error) {
		p, err := admin.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if p.DeletionTimestamp != nil {
			return false, fmt.Errorf("pod %s deleted, want it kept (it tolerates unreachable forever)", p.Name)
		}
		cond := podCondition(p, corev1.PodReady)
		return cond != nil && cond.Status == corev1.ConditionTrue, nil
	})
}

// hasEvent reports whether an event about the object name (in default,
// or about a node) has reason and a message containing message.
func hasEvent(ctx context.Context, admin kubernetes.Interface, name, reason, message string) (bool, error) {
	for _, ns := range []string{"default", ""} {
		list, err := admin.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			if e.InvolvedObject.Name == name && e.Reason == reason && strings.Contains(e.Message, message) {
				return true, nil
			}
		}
	}
	return false, nil
}
