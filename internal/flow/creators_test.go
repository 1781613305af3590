package flow_test

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// creatorEvent is a controller's event telling it created the object of
// kind and uid.
func creatorEvent(kind string, uid types.UID) flow.Event {
	return flow.Event{Object: flow.ObjectRef{Kind: kind, Name: "x-" + string(uid), UID: uid},
		Controller: &flow.ControllerAction{Controller: "replicaset", Created: true}}
}

func TestCreatedByController(t *testing.T) {
	admitted := func(user string) flow.Event {
		return flow.Event{Stage: flow.StageAdmitted, Request: &flow.RequestTrace{User: user}}
	}
	staged := admitted("system:serviceaccount:kube-system:replicaset-controller")
	staged.Stage = flow.StagePersisted
	tests := []struct {
		name string
		e    flow.Event
		want bool
	}{
		{"a controller's create", admitted("system:serviceaccount:kube-system:replicaset-controller"), true},
		{"admin's create", admitted("admin"), false},
		{"another namespace's service account", admitted("system:serviceaccount:default:builder"), false},
		{"no request trace", flow.Event{Stage: flow.StageAdmitted}, false},
		{"a later stage", staged, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := flow.CreatedByController(tt.e); got != tt.want {
				t.Errorf("CreatedByController = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestCreatorsFileOnlyPodsCreators: only the creator of a pod with a UID
// is kept.
func TestCreatorsFileOnlyPodsCreators(t *testing.T) {
	notCreated := creatorEvent("Pod", "scaled")
	notCreated.Controller.Created = false
	tests := []struct {
		name string
		e    flow.Event
		want bool
	}{
		{"a pod's creator", creatorEvent("Pod", "p1"), true},
		{"a ReplicaSet's creator", creatorEvent("ReplicaSet", "rs1"), false},
		{"a pod's creator without a UID", creatorEvent("Pod", ""), false},
		{"a controller action that created nothing", notCreated, false},
		{"no controller action", flow.Event{Object: flow.ObjectRef{Kind: "Pod", UID: "p2"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c flow.Creators
			if got := c.File(tt.e); got != tt.want {
				t.Errorf("File = %v, want %v", got, tt.want)
			}
			if _, ok := c.Take(tt.e.Object.UID); ok != tt.want {
				t.Errorf("Take after File: found %v, want %v", ok, tt.want)
			}
		})
	}
}

// TestCreatorsTakeOnce: a creator is given once, to the pod it created.
func TestCreatorsTakeOnce(t *testing.T) {
	var c flow.Creators
	if _, ok := c.Take("p1"); ok {
		t.Fatal("the zero Creators gave a creator")
	}
	c.File(creatorEvent("Pod", "p1"))
	c.File(creatorEvent("Pod", "p2"))
	e, ok := c.Take("p1")
	if !ok || e.Object.UID != "p1" {
		t.Fatalf("Take(p1) = %v, %v; want p1's creator", e.Object.UID, ok)
	}
	if _, ok := c.Take("p1"); ok {
		t.Error("Take(p1) gave a creator a second time")
	}
	if e, ok := c.Take("p2"); !ok || e.Object.UID != "p2" {
		t.Errorf("Take(p2) = %v, %v; want p2's creator", e.Object.UID, ok)
	}
}

// TestCreatorsForgetOldest: past 256 creators kept, filing one more
// forgets the one filed longest ago; one taken frees its place, and one
// filed again counts as filed last.
func TestCreatorsForgetOldest(t *testing.T) {
	const max = 256
	uid := func(i int) types.UID { return types.UID(fmt.Sprintf("p%d", i)) }
	var c flow.Creators
	for i := range max {
		c.File(creatorEvent("Pod", uid(i)))
	}
	c.Take(uid(5))                        // frees a place
	c.File(creatorEvent("Pod", uid(max))) // takes it: nothing is forgotten
	c.File(creatorEvent("Pod", uid(0)))   // filed again: 1 is now the oldest
	c.File(creatorEvent("Pod", uid(max+1)))
	for i := range max + 2 {
		want := i != 1 && i != 5
		if _, ok := c.Take(uid(i)); ok != want {
			t.Errorf("creator %d kept: %v, want %v", i, ok, want)
		}
	}
}
