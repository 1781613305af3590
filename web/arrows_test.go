package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// describe is an arrow in a line: kind from→to label [stage].
func describe(as []arrowMsg) []string {
	var out []string
	for _, a := range as {
		out = append(out, fmt.Sprintf("%s %s→%s %s [%d]", a.Kind, a.From, a.To, a.Label, a.Stage))
	}
	return out
}

func request(at time.Time, stage flow.Stage, audit, method, uri, user, agent string, code int) flow.Event {
	return flow.Event{Stage: stage, Time: at, Object: flow.ObjectRef{Namespace: "default", Name: "web", UID: "u1"},
		Request: &flow.RequestTrace{AuditID: audit, Method: method, URI: uri, User: user, UserAgent: agent, Code: code,
			Steps: []flow.Step{{Name: "aggregator", Outcome: "delegated"}, {Name: "kube-apiserver", Outcome: "served"}}}}
}

func write(at time.Time, stage flow.Stage, rev int64, by *flow.WriteAuthor) flow.Event {
	return flow.Event{Stage: stage, Time: at, Object: flow.ObjectRef{Namespace: "default", Name: "web", UID: "u1"},
		Etcd: &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: rev, PrevRevision: rev - 1, By: by}}
}

func TestBookDrawsTheLessonNotTheHeartbeats(t *testing.T) {
	start := time.Now()
	before, after := start.Add(-time.Second), start.Add(time.Second)
	b := newBook(start)
	quiet := []flow.Event{
		request(before, 0, "a1", "POST", "/api/v1/namespaces/kube-system/serviceaccounts", "system:kube-controller-manager", "kube-controller-manager/v1.37.2", 201),
		request(before, 0, "a2", "POST", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "admin", "kubesim/v0", 201),
		request(after, 0, "a3", "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node-1", "system:node:node-1", "kubelet/v1.37.2", 200),
		request(after, 0, "a4", "PATCH", "/api/v1/nodes/node-1/status", "system:node:node-1", "kubelet/v1.37.2", 200),
		request(after, 0, "a5", "GET", "/api/v1/pods?watch=true", "admin", webUserAgent, 200),
		request(after, 0, "a6", "GET", "/api/v1/namespaces/default/pods/web", "admin", expectUserAgent, 200),
		request(after, 0, "a7", "GET", "/api/v1/pods", "system:kube-scheduler", "kube-scheduler/v1.37.2", 200),
		write(after, 0, 9, nil),
	}
	for _, ev := range quiet {
		if got := b.arrows(ev); len(got) != 0 {
			t.Errorf("drew %v, want nothing", describe(got))
		}
	}
	got := describe(b.arrows(request(after, 0, "a8", "GET", "/api/v1/namespaces/default/pods/web", "admin", actionUserAgent, 200)))
	want := []string{"request client→apiserver GET /api/v1/namespaces/default/pods/web [0]", "response apiserver→client 200 OK [0]"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the lesson's GET drew\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// kubectl in a second terminal, once the lesson runs, is drawn.
	if got := b.arrows(request(after, 0, "a9", "DELETE", "/api/v1/namespaces/default/pods/web", "admin", "kubectl/v1.32.0", 200)); len(got) != 2 {
		t.Errorf("kubectl's DELETE drew %v, want its request and answer", describe(got))
	}
}

func TestBookDrawsARequestBeforeItsWrite(t *testing.T) {
	at := time.Now().Add(time.Second)
	b := newBook(at.Add(-time.Minute))
	binding := &flow.WriteAuthor{User: "system:kube-scheduler", Method: "POST", URI: "/api/v1/namespaces/default/pods/web/binding", AuditID: "bind"}
	status := &flow.WriteAuthor{User: "system:node:node-2", Method: "PATCH", URI: "/api/v1/namespaces/default/pods/web/status", AuditID: "st"}
	report := flow.Event{Stage: flow.StageStatusReported, Time: at, Object: flow.ObjectRef{Namespace: "default", Name: "web", UID: "u1"},
		Status: &flow.StatusReport{User: "system:node:node-2", Phase: "Running"}}
	var all []arrowMsg
	for _, ev := range []flow.Event{
		{Stage: flow.StageScheduled, Time: at, Scheduling: &flow.SchedulingDecision{Chosen: "node-2"}},
		write(at, flow.StageBindingPersisted, 20, binding),
		request(at, 0, "bind", "POST", binding.URI, binding.User, "kube-scheduler/v1.37.2", 201),
		report,
		request(at, flow.StageStatusReported, "st", "PATCH", status.URI, status.User, "kubelet/v1.37.2", 0),
		write(at, flow.StageStatusPersisted, 21, status),
		request(at, 0, "st", "PATCH", status.URI, status.User, "kubelet/v1.37.2", 200),
	} {
		all = append(all, b.arrows(ev)...)
	}
	want := []string{
		"schedule scheduler→scheduler filter+score → node-2 [4]",
		"request scheduler→apiserver POST /api/v1/namespaces/default/pods/web/binding [0]",
		"etcd apiserver→etcd update /registry/pods/default/web rev 20 [5]",
		"response apiserver→scheduler 201 Created [0]",
		"status kubelet/node-2→apiserver PATCH status (Running) [7]",
		"etcd apiserver→etcd update /registry/pods/default/web rev 21 [8]",
		"response apiserver→kubelet/node-2 200 OK [0]",
	}
	if got := describe(all); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("drew\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The binding's arrow shows its trace, the report's the report and
	// the PATCH's trace, answered.
	if evs, _ := b.events.events(all[1].ID); len(evs) != 1 || evs[0].Request == nil || evs[0].Request.Code != 201 {
		t.Errorf("the binding arrow's evidence = %+v, want the answered trace", evs)
	}
	evs, _ := b.events.events(all[4].ID)
	if len(evs) != 2 || evs[0].Status == nil || evs[1].Request == nil || evs[1].Request.Code != 200 {
		t.Errorf("the status arrow's evidence = %+v, want the report, then the answered PATCH", evs)
	}
}

func TestLifelines(t *testing.T) {
	for user, want := range map[string]string{
		"system:kube-scheduler": lineScheduler, "system:kube-controller-manager": lineControllers,
		"system:serviceaccount:kube-system:replicaset-controller": lineControllers,
		"system:serviceaccount:kube-system:default":               lineClient,
		"system:node:node-3":                                      "kubelet/node-3", "admin": lineClient,
	} {
		if got := lifeline(user); got != want {
			t.Errorf("lifeline(%q) = %q, want %q", user, got, want)
		}
	}
}

func TestBookDrawsEveryObjectsWriteOnce(t *testing.T) {
	at := time.Now().Add(time.Second)
	b := newBook(at.Add(-time.Minute))
	stored := func(ev flow.Event, verb, key, rev string) flow.Event {
		r := *ev.Request
		r.Steps = append(append([]flow.Step(nil), r.Steps...), flow.Step{Name: "stored", Outcome: "ok",
			Fields: map[string]string{"verb": verb, "key": key, "revision": rev}})
		ev.Request = &r
		return ev
	}
	crd := "/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"
	pod := &flow.WriteAuthor{User: "admin", Method: "POST", URI: "/api/v1/namespaces/default/pods", UserAgent: actionUserAgent, AuditID: "pod"}
	var all []arrowMsg
	for _, ev := range []flow.Event{
		// A CRD: the API server records no write event; the trace says it.
		stored(request(at, 0, "crd", "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "admin", actionUserAgent, 201), "create", crd, "40"),
		// A pod: its write is an event of its own, drawn once.
		request(at, flow.StageAdmitted, "pod", "POST", pod.URI, "admin", actionUserAgent, 0),
		write(at, flow.StagePersisted, 41, pod),
		stored(request(at, 0, "pod", "POST", pod.URI, "admin", actionUserAgent, 201), "create", "/registry/pods/default/web", "41"),
	} {
		all = append(all, b.arrows(ev)...)
	}
	want := []string{
		"request client→apiserver POST /apis/apiextensions.k8s.io/v1/customresourcedefinitions [0]",
		"etcd apiserver→etcd create " + crd + " rev 40 [0]",
		"response apiserver→client 201 Created [0]",
		"request client→apiserver POST /api/v1/namespaces/default/pods [1]",
		"etcd apiserver→etcd update /registry/pods/default/web rev 41 [2]",
		"response apiserver→client 201 Created [0]",
	}
	if got := describe(all); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("drew\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
