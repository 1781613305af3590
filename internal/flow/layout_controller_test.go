package flow

import (
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"
)

// createdEvent is the event of one pod a ReplicaSet controller's sync
// created, of n creates.
func createdEvent(n int) Event {
	a := &ControllerAction{Controller: "replicaset-controller", Queue: "replicaset", Key: "default/web-5d9c7c8f4b",
		Object:    ObjectRef{Kind: "ReplicaSet", Namespace: "default", Name: "web-5d9c7c8f4b"},
		Trigger:   &InformerEvent{Verb: "add", Object: ObjectRef{Kind: "ReplicaSet", Namespace: "default", Name: "web-5d9c7c8f4b"}, ResourceVersion: "512"},
		Decisions: []ControllerDecision{{Reason: DecisionTooFewReplicas, Want: int32(n), Have: 0, Count: int32(n)}},
		Owner:     &OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d9c7c8f4b", UID: "rs-uid", Controller: true, BlockOwnerDeletion: true},
		Created:   true}
	for i := range n {
		name := fmt.Sprintf("web-5d9c7c8f4b-p%04d", i)
		a.Writes = append(a.Writes, ControllerWrite{Method: "POST", Resource: "pods", Namespace: "default", Name: name, UID: types.UID(fmt.Sprint("uid-", i)), Code: 201})
	}
	last := a.Writes[n-1]
	return Event{Component: "kube-controller-manager/replicaset-controller", Controller: a,
		Object: ObjectRef{Kind: "Pod", Namespace: "default", Name: last.Name, UID: last.UID}}
}

func laidOut(l Layout, ev Event) string {
	var b strings.Builder
	for _, ln := range l.Event(ev, Context{}) {
		b.WriteString(ln.String() + "\n")
	}
	return b.String()
}

// TestLayoutControllerCreated: the event of a pod a controller created
// says who, the informer event, the key and queue, the figures, the
// pod's own write (marked, also when a Brief layout counts the others)
// and the ownerReference, in both languages.
func TestLayoutControllerCreated(t *testing.T) {
	ev := createdEvent(8)
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"en", []string{"created by replicaset-controller, syncing ReplicaSet default/web-5d9c7c8f4b",
			`add ReplicaSet default/web-5d9c7c8f4b (resourceVersion 512) queued the key "default/web-5d9c7c8f4b" on the workqueue "replicaset"`,
			"wants 8 replicas, has 0: too few, creating 8",
			"POST pods default/web-5d9c7c8f4b-p0007 → 201  ← this one", "… and 2 more",
			"ownerReference: ReplicaSet web-5d9c7c8f4b uid rs-uid  controller=true blockOwnerDeletion=true",
			`"Too few replicas" need=8 creating=8`}},
		{"zh", []string{"由 replicaset-controller 创建", "informer 事件 新增 ReplicaSet default/web-5d9c7c8f4b（resourceVersion 512）",
			"期望 8 个副本，现有 0 个：太少，创建 8 个", "← 就是它", "… 另有 2 个", "ownerReference（属主引用）"}},
	} {
		got := laidOut(Layout{Lang: c.lang}, ev)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q not in\n%s", c.lang, w, got)
			}
		}
	}
	full := laidOut(Layout{Form: Full}, ev)
	if !strings.Contains(full, "p0000 → 201") || strings.Contains(full, "more") {
		t.Errorf("full layout should list all 8 writes:\n%s", full)
	}
}

// TestLayoutControllerDecisions: each decision says its figures; an
// action of a controller that gives only lines shows them as they are.
func TestLayoutControllerDecisions(t *testing.T) {
	for _, c := range []struct {
		d    ControllerDecision
		want string
	}{
		{ControllerDecision{Reason: DecisionScaleUp, Target: "web-7c9f", From: 1, To: 2}, "scaled up ReplicaSet web-7c9f from 1 to 2"},
		{ControllerDecision{Reason: DecisionScaleDown, Target: "web-5d9c", From: 3, To: 2}, "scaled down ReplicaSet web-5d9c from 3 to 2"},
		{ControllerDecision{Reason: DecisionNewReplicaSet, Target: "web-7c9f", To: 1}, "created ReplicaSet web-7c9f, replicas: 1"},
		{ControllerDecision{Reason: DecisionOwnerGone, Target: "ReplicaSet web-5d9c", Policy: "Background"}, "none of its owners is left (ReplicaSet web-5d9c): deleting it, propagationPolicy Background"},
		{ControllerDecision{Reason: DecisionTooManyReplicas, Want: 2, Have: 3, Count: 1}, "wants 2 replicas, has 3: too many, deleting 1"},
		{ControllerDecision{Reason: DecisionEndpointSlicesChanged, Target: "web", Want: 3, Have: 2, Count: 1}, "EndpointSlices of Service web: 3 endpoints, 2 of them ready; 1 slices written"},
	} {
		ev := Event{Controller: &ControllerAction{Controller: "c", Key: "k", Decisions: []ControllerDecision{c.d}}}
		if got := laidOut(Layout{}, ev); !strings.Contains(got, c.want) {
			t.Errorf("%s: %q not in\n%s", c.d.Reason, c.want, got)
		}
	}
	ev := Event{Controller: &ControllerAction{Controller: "endpoints-controller", Key: "default/web", TriggerText: "update Pod default/web-1",
		DecisionText: "2 ready addresses", WriteLines: []string{"PUT endpoints default/web → 200"}}}
	got := laidOut(Layout{Lang: "zh"}, ev)
	ev.Controller.TriggerText, ev.Controller.Object = "", ObjectRef{}
	got += laidOut(Layout{}, ev)
	for _, w := range []string{"update Pod default/web-1", "2 ready addresses", "PUT endpoints default/web → 200",
		`endpoints-controller synced the key "default/web"`, `no informer event recorded for the key "default/web"`} {
		if !strings.Contains(got, w) {
			t.Errorf("%q not in\n%s", w, got)
		}
	}
}

// TestLayoutUpstreamController: a write of one of upstream's own
// controllers says who wrote or created what, and that its key, trigger
// and decision are not seen, in both languages; it never claims a key
// or an informer event.
func TestLayoutUpstreamController(t *testing.T) {
	a := &ControllerAction{Controller: "statefulset-controller", Key: "default/mysql-0", Upstream: true, Created: true,
		Object: ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "mysql-0"},
		Writes: []ControllerWrite{{Method: "POST", Resource: "pods", Namespace: "default", Name: "mysql-0", Code: 201}},
		Owner:  &OwnerReference{Kind: "StatefulSet", Name: "mysql", UID: "u-1", Controller: true, BlockOwnerDeletion: true}}
	en := laidOut(Layout{}, Event{Controller: a})
	zh := laidOut(Layout{Lang: "zh"}, Event{Controller: a})
	for _, w := range []string{"created by statefulset-controller\n", "is upstream's own code", "POST pods default/mysql-0 → 201",
		"ownerReference: StatefulSet mysql"} {
		if !strings.Contains(en, w) {
			t.Errorf("%q not in\n%s", w, en)
		}
	}
	for _, not := range []string{"syncing", "the key", "informer event add", "why now"} {
		if strings.Contains(en, not) {
			t.Errorf("%q in\n%s", not, en)
		}
	}
	if !strings.Contains(zh, "由 statefulset-controller 创建") || !strings.Contains(zh, "上游自己的代码") {
		t.Errorf("zh:\n%s", zh)
	}
	a.Created = false
	if got := laidOut(Layout{}, Event{Controller: a}); !strings.Contains(got, "a write by statefulset-controller") {
		t.Errorf("a write that made nothing:\n%s", got)
	}
}
