package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/kubesim/kubesim/internal/flow"
)

// controllerPod is a pod the replicaset controller created: its stage-1
// event (the create, sent by the controller's service account) and its
// creator's event.
func controllerPod() (flow.Event, flow.Event) {
	pod := flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-5d9c7c8f4b-x7k2p", UID: "p1"}
	rs := flow.ObjectRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web-5d9c7c8f4b"}
	admitted := flow.Event{Stage: flow.StageAdmitted, Component: "apiserver", Object: pod,
		Request: &flow.RequestTrace{Method: "POST", URI: "/api/v1/namespaces/default/pods", Proto: "HTTP/2.0",
			User: "system:serviceaccount:kube-system:replicaset-controller", Code: 201}}
	creator := flow.Event{Component: "kube-controller-manager/replicaset-controller", Object: pod, Controller: &flow.ControllerAction{
		Controller: "replicaset-controller", Queue: "replicaset", Key: "default/web-5d9c7c8f4b", Object: rs, Created: true,
		Trigger:   &flow.InformerEvent{Verb: "add", Object: rs, ResourceVersion: "88"},
		Decisions: []flow.ControllerDecision{{Reason: flow.DecisionTooFewReplicas, Want: 3, Have: 2, Count: 1}},
		Writes:    []flow.ControllerWrite{{Method: "POST", Resource: "pods", Namespace: "default", Name: pod.Name, UID: pod.UID, Code: 201}},
		Owner:     &flow.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: "r1", Controller: true, BlockOwnerDeletion: true}}}
	return admitted, creator
}

// TestStageOneBeginsWithCreator: the request tab of a controller's pod's
// stage 1 notes, until the creator's event comes, that a controller
// created it, then begins with who and why (decision with figures, the
// write, the ownerReference) above the create's trace; every row fits
// the pane of an 80×24 terminal, in both languages.
func TestStageOneBeginsWithCreator(t *testing.T) {
	for _, c := range []struct{ lang, pending, who, why string }{
		{"en", "created by a controller", "created by replicaset-controller", "wants 3 replicas, has 2: too few, creating 1"},
		{"zh", "由控制器创建", "由 replicaset-controller 创建", "期望 3 个副本，现有 2 个：太少，创建 1 个"},
	} {
		admitted, creator := controllerPod()
		ts := newTrackSet()
		ts.add(admitted)
		v := evidenceView{st: newStyles(asciiRenderer()), lang: c.lang, width: 48}
		body, _ := v.render(ts.followed(), flow.StageAdmitted, tabRequest)
		if got := strings.Join(body, "\n"); !strings.Contains(got, c.pending) {
			t.Errorf("%s: before the creator came, %q not in\n%s", c.lang, c.pending, got)
		}
		if !ts.add(creator) {
			t.Errorf("%s: the followed pod's creator did not count as an update", c.lang)
		}
		body, _ = v.render(ts.followed(), flow.StageAdmitted, tabRequest)
		got := strings.Join(body, "\n")
		flat := strings.Join(strings.Fields(got), " ")
		at := 0
		for _, want := range []string{c.who, c.why, "POST pods default/web-5d9c7c8f4b-x7k2p → 201", "ownerReference", "POST /api/v1/namespaces/default/pods"} {
			want = strings.Join(strings.Fields(want), " ")
			i := strings.Index(flat[at:], want)
			if i < 0 {
				t.Fatalf("%s: %q missing or out of order in\n%s", c.lang, want, got)
			}
			at += i
		}
		for _, row := range body {
			if w := ansi.StringWidth(row); w > 48 {
				t.Errorf("%s: row %q is %d wide, the pane 48", c.lang, row, w)
			}
		}
	}
}

// TestCreatorBeforeTrack: a creator that comes before its pod's stage 1
// is kept and filed once the pod's track is made.
func TestCreatorBeforeTrack(t *testing.T) {
	admitted, creator := controllerPod()
	ts := newTrackSet()
	ts.add(creator)
	ts.add(admitted)
	if tr := ts.followed(); tr == nil || tr.creator == nil {
		t.Fatalf("track %+v: no creator", tr)
	}
}

// TestStepTabListsControllerActions: the step tab lists the latest
// actions of the controllers other than pod creations, newest first,
// with their evidence.
func TestStepTabListsControllerActions(t *testing.T) {
	var l controllerLog
	for _, d := range []flow.ControllerDecision{
		{Reason: flow.DecisionScaleUp, Target: "web-new", From: 0, To: 1},
		{Reason: flow.DecisionScaleDown, Target: "web-old", From: 3, To: 2},
	} {
		l.add(flow.Event{Component: "kube-controller-manager/deployment-controller", Controller: &flow.ControllerAction{
			Controller: "deployment-controller", Queue: "deployment", Key: "default/web",
			Object: flow.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"}, Decisions: []flow.ControllerDecision{d}}})
	}
	_, creator := controllerPod()
	if !l.add(creator) {
		t.Error("a pod's creator is not for its track")
	}
	v := evidenceView{st: newStyles(asciiRenderer()), lang: "en", width: 48}
	got := strings.Join(strings.Fields(strings.Join(v.draw(v.controllerActions(&l)), " ")), " ")
	down, up := strings.Index(got, "scaled down ReplicaSet web-old from 3 to 2"), strings.Index(got, "scaled up ReplicaSet web-new from 0 to 1")
	if down < 0 || up < 0 || down > up || strings.Contains(got, "created by") {
		t.Errorf("want the scale-down, then the scale-up, and no creation:\n%s", got)
	}
}

// TestCreatorGolden renders stage 1 of the fixture's pod with the
// action of the controller that created it, at 80×24 in both languages.
func TestCreatorGolden(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		t.Run("80x24-"+lang, func(t *testing.T) {
			m, _ := startedModel(t, 80, 24, lang)
			feed(m, flow.StageAdmitted)
			_, creator := controllerPod()
			creator.Object = flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "nginx", UID: testUID}
			creator.Controller.Writes[0].Name, creator.Controller.Writes[0].UID = "nginx", testUID
			m.Update(flowEventsMsg{gen: m.gen, evs: []flow.Event{creator}})
			view := m.View()
			checkSize(t, view, 80, 24)
			golden.RequireEqual(t, []byte(view))
		})
	}
}
