package scenarios

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

const lbGate = corev1.PodConditionType("kubesim.io/lb-healthy")

// gatesFixture is undoFixture's web with pods of its ReplicaSet web-b
// (revision 2): a passed one, two not passed (older first by creation),
// and gated is false to leave the readiness gates out of the template.
func gatesFixture(gated bool) []runtime.Object {
	objs := undoFixture(false)
	rs := objs[2].(*appsv1.ReplicaSet)
	rs.UID = types.UID("rs-b")
	rs.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	yes := true
	pod := func(name string, age time.Duration, passed bool) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(time.Unix(1e9, 0).Add(-age)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-b", UID: "rs-b", Controller: &yes}}}}
		if gated {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: lbGate}}
		}
		if passed {
			p.Status.Conditions = []corev1.PodCondition{{Type: lbGate, Status: corev1.ConditionTrue}}
		}
		return p
	}
	return append(objs, pod("web-b-passed", 3*time.Minute, true), pod("web-b-new", time.Minute, false), pod("web-b-old", 2*time.Minute, false))
}

// TestPassReadinessGatesRun: the action passes the oldest pods not yet
// passed, with a status patch each, and waits (here until its deadline)
// while there are fewer than it was asked for; a pod without readiness
// gates is an error.
func TestPassReadinessGatesRun(t *testing.T) {
	p, fc := fakePlayer(t, gatesFixture(true)...)
	strategicStatusPatches(t, fc)
	a := &PassReadinessGatesAction{Deployment: webDeployment, Revision: 2, Pods: 1}
	res, err := a.run(context.Background(), p, DefaultUser)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if want := "pod web-b-old: kubesim.io/lb-healthy True (PATCH pods/web-b-old/status)"; len(res.HTTP) != 1 || res.HTTP[0] != want {
		t.Errorf("transcript %q, want [%q]", res.HTTP, want)
	}
	var patched []string
	for _, act := range fc.Actions() {
		if act.GetVerb() == "patch" {
			patched = append(patched, act.GetSubresource())
		}
	}
	if len(patched) != 1 || patched[0] != "status" {
		t.Errorf("patches of subresources %q, want one of status", patched)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	a.Pods = 2
	res, err = a.run(ctx, p, DefaultUser)
	if err == nil || !strings.Contains(err.Error(), "passed the readiness gates of 1 pods of ReplicaSet web-b, waited for 1 more") {
		t.Errorf("asked for more pods than there are: %v", err)
	}
	if len(res.HTTP) != 1 || !strings.Contains(res.HTTP[0], "web-b-new") {
		t.Errorf("transcript %q, want web-b-new passed", res.HTTP)
	}

	p, fc = fakePlayer(t, gatesFixture(false)...)
	strategicStatusPatches(t, fc)
	if _, err := a.run(context.Background(), p, DefaultUser); err == nil || !strings.Contains(err.Error(), "has no readiness gates") {
		t.Errorf("pods without gates: %v", err)
	}
}

// strategicStatusPatches makes the fake apply a pod status patch of
// conditions as the API server's strategic merge would (the fake's own
// needs typed objects): each condition replaces the one of its type.
func strategicStatusPatches(t *testing.T, fc *dynamicfake.FakeDynamicClient) {
	fc.PrependReactor("patch", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		pa := action.(clienttesting.PatchAction)
		var patch struct {
			Status struct{ Conditions []corev1.PodCondition } `json:"status"`
		}
		if err := json.Unmarshal(pa.GetPatch(), &patch); err != nil {
			t.Errorf("patch %s: %v", pa.GetPatch(), err)
		}
		gvr := action.GetResource()
		obj, err := fc.Tracker().Get(gvr, pa.GetNamespace(), pa.GetName())
		if err != nil {
			return true, nil, err
		}
		pod := &corev1.Pod{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, pod); err != nil {
			return true, nil, err
		}
		for _, c := range patch.Status.Conditions {
			kept := pod.Status.Conditions[:0]
			for _, o := range pod.Status.Conditions {
				if o.Type != c.Type {
					kept = append(kept, o)
				}
			}
			pod.Status.Conditions = append(kept, c)
		}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(pod)
		if err != nil {
			return true, nil, err
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("v1")
		u.SetKind("Pod")
		return true, u, fc.Tracker().Update(gvr, u, pa.GetNamespace())
	})
}
