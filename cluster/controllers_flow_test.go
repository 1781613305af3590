package cluster_test

import (
	"context"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestControllerActionsReachTheRecorder: a Deployment of 2 gives the
// deployment controller's action (a new ReplicaSet, with the informer
// event that queued the Deployment and its POST → 201), the ReplicaSet
// controller's (wants 2, has 0, creating 2) and, for each pod, an event
// about the pod naming its creator, its write and its ownerReference,
// for the pod whose stage 1 the API server recorded.
func TestControllerActionsReachTheRecorder(t *testing.T) {
	_, admin, sub := stagedCluster(t, 1, nil)
	two := int32(2)
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: "nginx"}}}}}}
	if _, err := admin.AppsV1().Deployments("default").Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	admitted := map[types.UID]bool{}
	creators := map[types.UID]*flow.ControllerAction{}
	var newRS, tooFew *flow.ControllerAction
	deadline := time.After(waitTimeout)
	for len(creators) < 2 || newRS == nil || tooFew == nil || !allIn(creators, admitted) {
		select {
		case <-deadline:
			t.Fatalf("after %v: %d pods with a creator, new ReplicaSet %v, too few %v, admitted %d", waitTimeout, len(creators), newRS != nil, tooFew != nil, len(admitted))
		case ev := <-sub.Events():
			switch a := ev.Controller; {
			case ev.Stage == flow.StageAdmitted:
				admitted[ev.Object.UID] = true
			case a == nil:
			case a.Created && ev.Object.Kind == "Pod":
				creators[ev.Object.UID] = a
			case hasDecision(a, flow.DecisionNewReplicaSet):
				newRS = a
			case hasDecision(a, flow.DecisionTooFewReplicas):
				tooFew = a
			}
		}
	}
	if newRS.Controller != "deployment-controller" || newRS.Trigger == nil || newRS.Trigger.Object.Kind != "Deployment" ||
		newRS.Trigger.Verb != "add" || newRS.Key != "default/web" {
		t.Errorf("deployment action: controller %q key %q trigger %+v, want deployment-controller, default/web, add Deployment", newRS.Controller, newRS.Key, newRS.Trigger)
	}
	if !hasWrite(newRS, "POST", "replicasets", 201) {
		t.Errorf("deployment action writes %+v: no POST replicasets → 201", newRS.Writes)
	}
	dec := tooFew.Decisions[0]
	if tooFew.Controller != "replicaset-controller" || dec.Want != 2 || dec.Have != 0 || dec.Count != 2 {
		t.Errorf("replicaset action %s: %+v, want wants 2, has 0, creating 2", tooFew.Controller, dec)
	}
	if tooFew.Trigger == nil || tooFew.Trigger.Object.Kind != "ReplicaSet" || tooFew.Trigger.Verb != "add" {
		t.Errorf("replicaset action trigger %+v, want the add of the ReplicaSet", tooFew.Trigger)
	}
	for uid, a := range creators {
		if a.Owner == nil || a.Owner.Kind != "ReplicaSet" || a.Owner.Name != tooFew.Object.Name || !a.Owner.Controller {
			t.Errorf("pod %s: ownerReference %+v, want the controller ReplicaSet %s", uid, a.Owner, tooFew.Object.Name)
		}
		found := false
		for _, w := range a.Writes {
			found = found || (w.UID == uid && w.Method == "POST" && w.Resource == "pods" && w.Code == 201)
		}
		if !found {
			t.Errorf("pod %s: writes %+v hold no POST pods → 201 of it", uid, a.Writes)
		}
	}
}

func allIn(m map[types.UID]*flow.ControllerAction, set map[types.UID]bool) bool {
	for uid := range m {
		if !set[uid] {
			return false
		}
	}
	return true
}

func hasDecision(a *flow.ControllerAction, reason string) bool {
	for _, d := range a.Decisions {
		if d.Reason == reason {
			return true
		}
	}
	return false
}

func hasWrite(a *flow.ControllerAction, method, resource string, code int) bool {
	for _, w := range a.Writes {
		if w.Method == method && w.Resource == resource && w.Code == code {
			return true
		}
	}
	return false
}
