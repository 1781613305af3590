package scenarios

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// podWriteEvent is the flow event of a write (op) of pod name (uid) at
// rev by user, the value written from the given parts.
func podWriteEvent(name, uid, op string, rev int64, user, node, phase string, ready, deleting bool) flow.Event {
	value := fmt.Sprintf(`{"metadata":{"name":%q,"labels":{"app":"db"}%s},"spec":{"nodeName":%q},"status":{"phase":%q,"conditions":[{"type":"Ready","status":%q}]}}`,
		name, map[bool]string{true: `,"deletionTimestamp":"2026-01-01T00:00:00Z"`}[deleting], node, phase, map[bool]string{true: "True", false: "False"}[ready])
	ev := flow.Event{Object: flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: name, UID: types.UID(uid)},
		Etcd: &flow.EtcdWrite{Op: op, Revision: rev, Value: value}}
	if user != "" {
		ev.Etcd.By = &flow.WriteAuthor{User: user}
	}
	return ev
}

// orderedSet is a set's three writes of db-0 and db-1, db-1 made after
// db-0 was ready, then db-1 deleted.
func orderedSet() []flow.Event {
	const ctl, sched = "system:serviceaccount:kube-system:statefulset-controller", "system:kube-scheduler"
	return []flow.Event{
		podWriteEvent("db-0", "u0", "create", 10, ctl, "", "Pending", false, false),
		podWriteEvent("db-0", "u0", "update", 11, sched, "node-1", "Pending", false, false),
		podWriteEvent("db-0", "u0", "update", 12, "system:node:node-1", "node-1", "Running", false, false),
		podWriteEvent("db-0", "u0", "update", 13, "system:node:node-1", "node-1", "Running", true, false),
		podWriteEvent("db-1", "u1", "create", 14, ctl, "", "Pending", false, false),
		podWriteEvent("db-1", "u1", "update", 15, sched, "node-2", "Pending", false, false),
		podWriteEvent("db-1", "u1", "update", 16, ctl, "node-2", "Pending", false, true),
		podWriteEvent("db-1", "u1", "delete", 17, "system:node:node-2", "", "", false, false),
	}
}

// TestPodMoments: each pod's first write of each kind is its moment, by
// revision, with who wrote it.
func TestPodMoments(t *testing.T) {
	var got []string
	for _, m := range podMoments(orderedSet(), "default") {
		got = append(got, fmt.Sprintf("%d %s %s %s", m.Revision, m.Pod, m.Moment, m.User))
	}
	want := []string{
		"10 db-0 created system:serviceaccount:kube-system:statefulset-controller",
		"11 db-0 bound system:kube-scheduler",
		"13 db-0 ready system:node:node-1",
		"14 db-1 created system:serviceaccount:kube-system:statefulset-controller",
		"15 db-1 bound system:kube-scheduler",
		"16 db-1 terminating system:serviceaccount:kube-system:statefulset-controller",
		"17 db-1 deleted system:node:node-2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("moments\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if ms := podMoments(orderedSet(), "other"); len(ms) != 0 {
		t.Errorf("moments in namespace other: %v, want none", ms)
	}
}

// TestParsePodOrder: moments are "POD MOMENT", at least two.
func TestParsePodOrder(t *testing.T) {
	checkParse(t, parsePodOrder, []parseCase[Expectation]{
		{name: "two", key: "podOrder", src: `{order: ["db-0 ready", "db-1 created"]}`,
			want: &PodOrderExpectation{Namespace: "default", Order: []podMomentRef{{"db-0", "ready"}, {"db-1", "created"}}}},
		{name: "one", key: "podOrder", src: `{order: ["db-0 ready"]}`,
			wantErr: `1:9: podOrder.order: order needs at least two moments ("mysql-0 ready", "mysql-1 created")`},
		{name: "bad moment", key: "podOrder", src: `{order: ["db-0 ready", "db-1 born"]}`,
			wantErr: `1:24: podOrder.order[1]: "db-1 born" is not "POD MOMENT" with MOMENT one of created, bound, ready, terminating, deleted`},
	})
}

// TestPodOrderProbe: the order holds when the revisions rise as listed,
// and not when one comes before, or is not there yet.
func TestPodOrderProbe(t *testing.T) {
	for _, tc := range []struct {
		order  []podMomentRef
		wantOK bool
		got    string
	}{
		{[]podMomentRef{{"db-0", "ready"}, {"db-1", "created"}, {"db-1", "deleted"}}, true, ""},
		{[]podMomentRef{{"db-1", "created"}, {"db-0", "ready"}}, false, "db-1 created at revision 14, db-0 ready at revision 13: not after db-1 created"},
		{[]podMomentRef{{"db-0", "ready"}, {"db-0", "deleted"}}, false, "db-0 ready at revision 13, db-0 deleted not yet"},
	} {
		p := &player{events: orderedSet(), changed: make(chan struct{})}
		e := &PodOrderExpectation{Namespace: "default", Order: tc.order}
		got, ok, _ := e.probe(context.Background(), p)
		if ok != tc.wantOK || got != tc.got {
			t.Errorf("%s: probe = %q, %v; want %q, %v", e, got, ok, tc.got, tc.wantOK)
		}
	}
}

// TestPodTimelineRun: the timeline lists the selected pods' moments in
// revision order, with their writers.
func TestPodTimelineRun(t *testing.T) {
	p := &player{events: orderedSet(), changed: make(chan struct{})}
	res, err := (&PodTimelineAction{Selector: "app=db", Namespace: "default"}).run(context.Background(), p, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"revision 10: db-0 created by system:serviceaccount:kube-system:statefulset-controller",
		"revision 11: db-0 bound to node-1 by system:kube-scheduler",
		"revision 13: db-0 Running and Ready on node-1 (system:node:node-1)",
		"revision 14: db-1 created by system:serviceaccount:kube-system:statefulset-controller",
		"revision 15: db-1 bound to node-2 by system:kube-scheduler",
		"revision 16: db-1 terminating: deletion asked by system:serviceaccount:kube-system:statefulset-controller",
		"revision 17: db-1 deleted from etcd (system:node:node-2)",
	}
	if strings.Join(res.HTTP, "\n") != strings.Join(want, "\n") {
		t.Errorf("timeline\n got %s\nwant %s", strings.Join(res.HTTP, "\n     "), strings.Join(want, "\n     "))
	}
	if zh := res.Transcript[0].Zh; !strings.Contains(zh, "被创建") {
		t.Errorf("Chinese line %q is not translated", zh)
	}
	res, _ = (&PodTimelineAction{Selector: "app=web", Namespace: "default"}).run(context.Background(), p, "")
	if len(res.HTTP) != 1 || res.HTTP[0] != "(no pod of app=web has been written yet)" {
		t.Errorf("timeline of no pods: %q", res.HTTP)
	}
}

// TestMomentFacts: firstPod names the pod whose moment came first;
// momentBy who wrote it, on the node asked.
func TestMomentFacts(t *testing.T) {
	p := &player{events: orderedSet(), changed: make(chan struct{})}
	for _, tc := range []struct {
		src, want string
	}{
		{"fact: firstPod\nselector: app=db\nmoment: created", "db-0"},
		{"fact: firstPod\nselector: app=db\nmoment: terminating", "db-1"},
		{"fact: momentBy\nselector: app=db\nmoment: bound\nnode: node-2", "system:kube-scheduler"},
		{"fact: momentBy\nselector: app=db\nmoment: deleted", "system:node:node-2"},
	} {
		src := "ask: {en: a, zh: b}\n" + tc.src + "\nchoices:\n  - {text: {en: x, zh: x}, value: db-0}\n  - {text: {en: y, zh: y}, value: system:kube-scheduler}\n"
		kind := strings.TrimPrefix(strings.SplitN(tc.src, "\n", 2)[0], "fact: ")
		k, _ := factKindOf(kind)
		d, err := decodeAs[questionDoc](mustNode(t, src))
		if err != nil {
			t.Fatal(err)
		}
		f, err := k.parse(&d, mustNode(t, src))
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		if got, ok, _ := f.look(context.Background(), p, nil); !ok || got != tc.want {
			t.Errorf("%q: look = %q, %v; want %q", tc.src, got, ok, tc.want)
		}
	}
}
