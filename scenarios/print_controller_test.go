package scenarios_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// TestPlainPrinterPutsCreatorFirst: a pod a controller created gets its
// creator's block before its stage 1, although the creator's event
// comes after stages 1 and 2 (the controller learns the pod's name when
// its POST returns); the action about the ReplicaSet is not printed
// again; an action that created no pod is an aside. In both languages.
func TestPlainPrinterPutsCreatorFirst(t *testing.T) {
	pod := flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "web-5d9c-abcde", UID: "p1"}
	rs := flow.ObjectRef{APIVersion: "apps/v1", Kind: "ReplicaSet", Namespace: "default", Name: "web-5d9c"}
	action := flow.ControllerAction{Controller: "replicaset-controller", Queue: "replicaset", Key: "default/web-5d9c", Object: rs,
		Trigger:   &flow.InformerEvent{Verb: "add", Object: rs, ResourceVersion: "40"},
		Decisions: []flow.ControllerDecision{{Reason: flow.DecisionTooFewReplicas, Want: 1, Have: 0, Count: 1}},
		Writes:    []flow.ControllerWrite{{Method: "POST", Resource: "pods", Namespace: "default", Name: pod.Name, UID: pod.UID, Code: 201}},
		Owner:     &flow.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-5d9c", UID: "r1", Controller: true, BlockOwnerDeletion: true}}
	created := action
	created.Created = true
	scale := flow.ControllerAction{Controller: "deployment-controller", Queue: "deployment", Key: "default/web",
		Object:    flow.ObjectRef{Kind: "Deployment", Namespace: "default", Name: "web"},
		Decisions: []flow.ControllerDecision{{Reason: flow.DecisionScaleUp, Target: "web-5d9c", From: 1, To: 2}}}
	for _, c := range []struct{ lang, head, stage1, why, aside string }{
		{"en", "[before 1/8] Who created it — pod web-5d9c-abcde", "[1/8]", "wants 1 replicas, has 0: too few, creating 1", "scaled up ReplicaSet web-5d9c from 1 to 2"},
		{"zh", "[1/8 之前] 谁创建了它 — Pod web-5d9c-abcde", "[1/8]", "期望 1 个副本，现有 0 个：太少，创建 1 个", "把 ReplicaSet web-5d9c 从 1 扩容到 2"},
	} {
		var out bytes.Buffer
		p := scenarios.NewPlainPrinter(&out, c.lang)
		step := scenarios.StepInfo{Index: 1, Total: 1, Narration: flow.Text{En: "ONE", Zh: "一"}}
		p.StepStarted(step)
		p.Event(flow.Event{Component: "c", Object: scale.Object, Controller: &scale})
		p.Event(flow.Event{Stage: flow.StageAdmitted, Component: "apiserver", Object: pod, Summary: "ADMITTED",
			Request: &flow.RequestTrace{Method: "POST", URI: "/api/v1/namespaces/default/pods", User: "system:serviceaccount:kube-system:replicaset-controller"}})
		p.Event(flow.Event{Stage: flow.StagePersisted, Component: "apiserver", Object: pod, Summary: "STORED"})
		if strings.Contains(out.String(), c.stage1) {
			t.Fatalf("%s: stage 1 printed before its creator came:\n%s", c.lang, out.String())
		}
		p.Event(flow.Event{Component: "kcm", Object: rs, Controller: &action})
		p.Event(flow.Event{Component: "kcm", Object: pod, Controller: &created})
		p.StepFinished(step, scenarios.StepResult{})
		text := out.String()
		at := 0
		for _, want := range []string{c.aside, c.head, c.why, "ownerReference", c.stage1, "[2/8]"} {
			i := strings.Index(text[at:], want)
			if i < 0 {
				t.Fatalf("%s: %q missing or out of order in\n%s", c.lang, want, text)
			}
			at += i
		}
		if n := strings.Count(text, "POST pods default/web-5d9c-abcde → 201"); n != 1 {
			t.Errorf("%s: the pod's write printed %d times, want once (in its creator block):\n%s", c.lang, n, text)
		}
	}
}

// TestPlayShowsWhoCreatedEachPod: played headless, a Deployment's pods
// each begin with who created them, before their stage 1: the
// ReplicaSet controller, its decision with figures, its write of that
// pod and the ownerReference; the deployment controller's action (a new
// ReplicaSet) comes first.
func TestPlayShowsWhoCreatedEachPod(t *testing.T) {
	s := mustFind(t, "testdata/deployment-pods.yaml")
	c := mustStartCluster(t, s)
	var out bytes.Buffer
	if err := play(t, c, s, scenarios.NewPlainPrinter(&out, "en")); err != nil {
		t.Fatalf("Play = %v\noutput:\n%s", err, out.String())
	}
	text := out.String()
	pods := regexp.MustCompile(`\[1/8\] Request admitted — pod (web-[a-z0-9]+-[a-z0-9]{5})\n`).FindAllStringSubmatchIndex(text, -1)
	if len(pods) != 2 {
		t.Fatalf("%d pods with a stage 1, want 2:\n%s", len(pods), text)
	}
	// The deployment controller's creation of the ReplicaSet is printed
	// as its POST returns, before the pods the ReplicaSet controller
	// makes; its whole sync is not printed again.
	newRS := strings.Index(text, "created by deployment-controller, syncing Deployment default/web\n")
	if newRS < 0 || !regexp.MustCompile(`· ReplicaSet web-[a-z0-9]+: who created it\n`).MatchString(text[:newRS]) ||
		!strings.Contains(text, "no ReplicaSet has the current pod template: created ReplicaSet web-") ||
		!regexp.MustCompile(`POST replicasets default/web-[a-z0-9]+ → 201  ← this one\n +ownerReference: Deployment web uid [0-9a-f-]+  controller=true blockOwnerDeletion=true\n`).MatchString(text) {
		t.Errorf("no deployment controller action with its new ReplicaSet:\n%s", text)
	}
	if strings.Contains(text, "deployment-controller synced Deployment default/web\n") {
		t.Errorf("the deployment controller's sync printed again after its creation:\n%s", text)
	}
	for _, m := range pods {
		name := text[m[2]:m[3]]
		head := strings.Index(text, "[before 1/8] Who created it — pod "+name+"\n")
		if head < 0 || head > m[0] || head < newRS {
			t.Errorf("pod %s: creator block at %d, stage 1 at %d, deployment action at %d: want action < creator < stage 1\n%s", name, head, m[0], newRS, text)
			continue
		}
		block := text[head:m[0]]
		for _, want := range []string{"created by replicaset-controller, syncing ReplicaSet default/web-", "wants 2 replicas, has ",
			"POST pods default/" + name + " → 201  ← this one", "ownerReference: ReplicaSet web-", "controller=true blockOwnerDeletion=true",
			`queued the key "default/web-`} {
			if !strings.Contains(block, want) {
				t.Errorf("pod %s: %q not in its creator block:\n%s", name, want, block)
			}
		}
	}
}
