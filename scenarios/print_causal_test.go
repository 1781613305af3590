package scenarios_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// TestPlainPrinterPrintsInCausalOrder: blocks that reach the printer in
// another order than they happened (a controller's sync is recorded
// when it ends, after the syncs its writes caused) print in the order of
// their evidence's times, and etcd writes in revision order.
func TestPlainPrinterPrintsInCausalOrder(t *testing.T) {
	t0 := time.Now()
	node := flow.ObjectRef{Kind: "Node", Name: "node-2", UID: "n2"}
	pod := flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "web", UID: "p1"}
	sync := func(at time.Duration, text string) flow.Event {
		return flow.Event{Component: "kcm", Object: node, Time: t0.Add(at),
			Controller: &flow.ControllerAction{Controller: "node-lifecycle-controller", Key: "node-2", Object: node, TriggerText: text, DecisionText: text}}
	}
	write := func(at time.Duration, rev int64) flow.Event {
		return flow.Event{Component: "apiserver", Object: pod, Time: t0.Add(at),
			Etcd: &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: rev, PrevRevision: rev - 1}}
	}
	for _, lang := range []string{"en", "zh"} {
		var out bytes.Buffer
		p := scenarios.NewPlainPrinter(&out, lang)
		step := scenarios.StepInfo{Index: 1, Total: 1, Narration: flow.Text{En: "ONE", Zh: "一"}}
		p.StepStarted(step)
		p.Event(flow.Event{Stage: flow.StagePersisted, Component: "apiserver", Object: pod, Time: t0,
			Etcd: &flow.EtcdWrite{Op: "create", Key: "/registry/pods/default/web", Revision: 10}})
		// Recorded in this order: the taint sync (began at 3) ended
		// before the Ready=Unknown sync (began at 1) did; the writes at
		// 12 and 11 read their clocks in the other order.
		p.Event(sync(3*time.Millisecond, "TAINT"))
		p.Event(write(5*time.Millisecond, 12))
		p.Event(write(4*time.Millisecond, 11))
		p.Event(sync(1*time.Millisecond, "UNKNOWN"))
		p.StepFinished(step, scenarios.StepResult{})
		text := out.String()
		at := 0
		for _, want := range []string{"revision 10", "UNKNOWN", "TAINT", "revision 11", "revision 12", "✓"} {
			i := strings.Index(text[at:], want)
			if i < 0 {
				t.Fatalf("%s: %q missing or out of causal order in\n%s", lang, want, text)
			}
			at += i
		}
	}
}

// shownRevision matches the revision of an etcd write a block shows: a
// stage block's "revision N = resourceVersion" or "revision N (previous
// revision M)", an aside's "etcd update KEY, revision N (previous M)".
var shownRevision = regexp.MustCompile(`(?m)^(?:    revision (\d+) [=(]|  · etcd \w+ \S+, revision (\d+)\b)`)

// TestPlayNodeFailureInCausalOrder plays node-failure headless: the
// node lifecycle controller's block that sets Ready to Unknown precedes
// the etcd write of the pod's Ready=False it made and both of its taint
// blocks (NoSchedule, NoExecute), and the NoExecute taint's block
// precedes the taint eviction controller's block about that taint; in
// each step's output the etcd revisions printed never go back.
func TestPlayNodeFailureInCausalOrder(t *testing.T) {
	s := mustFind(t, "node-failure")
	c := mustStartCluster(t, s)
	var out bytes.Buffer
	if err := play(t, c, s, scenarios.NewPlainPrinter(&out, "en")); err != nil {
		t.Fatalf("Play: %v\n%s", err, out.String())
	}
	text := out.String()
	unknown := strings.Index(text, "Ready True → Unknown")
	noSchedule := strings.Index(text, "conditions call for NoSchedule taints: add node.kubernetes.io/unreachable:NoSchedule")
	noExecute := strings.Index(text, "taint node.kubernetes.io/unreachable:NoExecute")
	heard := strings.Index(text, "why now: NoExecute taint on node node-2")
	podWrite := regexp.MustCompile(`  · etcd update /registry/pods/default/web-\S+, revision \d+ \(previous \d+\), for PUT \S+/status by system:serviceaccount:kube-system:node-controller`).FindStringIndex(text)
	if unknown < 0 || noSchedule < unknown || noExecute < unknown || heard < noExecute || podWrite == nil || podWrite[0] < unknown {
		t.Fatalf("out of causal order: Ready=Unknown at %d, its pod write at %v, NoSchedule taint at %d, NoExecute taint at %d, heard at %d:\n%s",
			unknown, podWrite, noSchedule, noExecute, heard, text)
	}
	for n, section := range strings.Split(text, "\n=== ") {
		last := int64(0)
		for _, m := range shownRevision.FindAllStringSubmatch(section, -1) {
			rev, _ := strconv.ParseInt(m[1]+m[2], 10, 64)
			if rev < last {
				t.Errorf("section %d: revision %d printed after revision %d:\n%s", n, rev, last, section)
				break
			}
			last = rev
		}
	}
}
