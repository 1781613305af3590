package tui

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/internal/flow"
)

// t0 is the fixed clock of every test.
var t0 = time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)

func fixedNow() time.Time { return t0.Add(10 * time.Second) }

const testUID = "6f1c2a7e-3b7d-4c1e-9a51-0d2e8f4b7c11"

var testInfos = []ScenarioInfo{
	{Name: "pod-create", Level: "beginner", Steps: 2,
		Title:   flow.Text{En: "Create a pod: the eight stages", Zh: "创建一个 Pod：八个阶段"},
		Summary: flow.Text{En: "Follow one nginx pod from kubectl create to Running: admission, etcd, the scheduler's watch, binding, the kubelet and the status.", Zh: "跟随一个 nginx Pod 从 kubectl create 到 Running：准入、etcd、调度器的 watch、绑定、kubelet 与状态。"}},
	{Name: "request-lifecycle", Level: "beginner", Steps: 3,
		Title:   flow.Text{En: "The nine steps of one request", Zh: "一个请求的九个步骤"},
		Summary: flow.Text{En: "One GET, from the TLS handshake to the response, with go-restful's dispatch.", Zh: "一个 GET 请求，从 TLS 握手到响应，以及 go-restful 的分发。"}},
	{Name: "watch-mechanics", Level: "intermediate", Steps: 4,
		Title:   flow.Text{En: "Polling, long polling, chunked and HTTP/2 watches", Zh: "轮询、长轮询、分块与 HTTP/2 watch"},
		Summary: flow.Text{En: "The same mysql-0 changes seen four ways.", Zh: "用四种方式观察同一个 mysql-0 的变化。"}},
}

var testStep = StepUpdate{Index: 1, Total: 2, ID: "create-nginx",
	Narration: flow.Text{
		En: "We create a pod named nginx. Watch the request pass authentication, authorization and admission before anything is written to etcd.",
		Zh: "我们创建一个名为 nginx 的 Pod。看请求先通过认证、授权和准入，然后才写入 etcd。"},
	Action: "apply Pod default/nginx"}

func podJSON(rv int, node string, phase string, conds string) string {
	spec := `"containers":[{"name":"nginx","image":"nginx:1.27","resources":{"requests":{"cpu":"250m","memory":"64Mi"}}}],"restartPolicy":"Always","schedulerName":"default-scheduler"`
	if node != "" {
		spec += `,"nodeName":"` + node + `"`
	}
	status := `"phase":"` + phase + `","qosClass":"Burstable"`
	if conds != "" {
		status += `,"conditions":[` + conds + `]`
	}
	return fmt.Sprintf(`{"kind":"Pod","apiVersion":"v1","metadata":{"name":"nginx","namespace":"default","uid":"%s","resourceVersion":"%d","creationTimestamp":"2026-01-02T10:00:00Z"},"spec":{%s},"status":{%s}}`,
		testUID, rv, spec, status)
}

// stageEvents returns realistic events of pod default/nginx's eight
// stages, in recording order, with the complete create trace after
// stage 2 (stage 0, as the apiserver records it).
func stageEvents() []flow.Event {
	ref := flow.ObjectRef{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "nginx", UID: testUID}
	trace, full := createTraces()
	v412 := podJSON(412, "", "Pending", "")
	v415 := podJSON(415, "node-2", "Pending", `{"type":"PodScheduled","status":"True"}`)
	v418 := podJSON(418, "node-2", "Running", `{"type":"PodScheduled","status":"True"},{"type":"Initialized","status":"True"},{"type":"ContainersReady","status":"True"},{"type":"Ready","status":"True"}`)
	jsonFrame := []byte(`{"type":"ADDED","object":` + v412 + "}\n")
	protoFrame := append([]byte{0x00, 0x00, 0x01, 0x2c, 'k', '8', 's', 0x00, 0x0a, 0x0c, 0x0a, 0x02, 'v', '1', 0x12, 0x06, 'P', 'o', 'd'}, []byte("\x12\x8a\x02\n\x05nginx\x12\x00\x1a\x07default")...)
	statusPatch, statusTrace := statusPatchTrace()
	ev := func(ms int, s flow.Stage, comp, sum string) flow.Event {
		return flow.Event{Stage: s, Component: comp, Object: ref, Time: fixtureAt(ms), Summary: sum}
	}
	var out []flow.Event
	e := ev(0, 1, "apiserver", "POST pods admitted")
	e.Time = fixtureAt(0).Add(355 * time.Microsecond)
	e.Request = trace
	out = append(out, e)
	e = ev(1204, 2, "apiserver", "create /registry/pods/default/nginx at 412")
	e.Etcd = &flow.EtcdWrite{Op: "create", Key: "/registry/pods/default/nginx", Revision: 412, Value: v412}
	out = append(out, e)
	e = ev(1205, 0, "apiserver", "POST pods 201")
	e.Request = full
	out = append(out, e)
	e = ev(2207, 3, "apiserver", "ADDED to system:kube-scheduler")
	e.Watch = &flow.WatchDelivery{User: "system:kube-scheduler", URI: "/api/v1/pods?fieldSelector=status.phase%21%3DSucceeded&resourceVersion=400&watch=true",
		Proto: "HTTP/1.1", ContentType: "application/json;stream=watch", Type: "ADDED", ResourceVersion: "412", Frame: jsonFrame}
	out = append(out, e)
	e = ev(3215, 4, "scheduler", "default/nginx → node-2")
	e.Scheduling = &flow.SchedulingDecision{Attempt: 1, Chosen: "node-2", Nodes: []flow.NodeVerdict{
		{Node: "node-1", Feasible: true, Total: 151, Scores: []flow.PluginScore{{Plugin: "NodeResourcesFit", Score: 72, Weight: 1}, {Plugin: "BalancedAllocation", Score: 79, Weight: 1}}},
		{Node: "node-2", Feasible: true, Total: 186, Scores: []flow.PluginScore{{Plugin: "NodeResourcesFit", Score: 93, Weight: 1}, {Plugin: "BalancedAllocation", Score: 93, Weight: 1}}},
		{Node: "node-3", Feasible: false, FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}},
	}}
	out = append(out, e)
	e = ev(4230, 5, "apiserver", "update /registry/pods/default/nginx at 415")
	e.Etcd = &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/nginx", Revision: 415, PrevRevision: 412, Value: v415}
	out = append(out, e)
	e = ev(5240, 6, "apiserver", "ADDED to system:node:node-2")
	e.Watch = &flow.WatchDelivery{User: "system:node:node-2", URI: "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-2&watch=true",
		Proto: "HTTP/2.0", ContentType: "application/vnd.kubernetes.protobuf;stream=watch", Type: "ADDED", ResourceVersion: "415", Frame: protoFrame}
	out = append(out, e)
	for i, a := range []flow.RuntimeAction{
		{Action: "pull", Container: "nginx", Image: "nginx:1.27", Duration: 800 * time.Millisecond, Result: "ok"},
		{Action: "create", Container: "nginx", Duration: 50 * time.Millisecond, Result: "ok"},
		{Action: "start", Container: "nginx", Duration: 20 * time.Millisecond, Result: "ok"},
	} {
		// recorded when the action ends, as the kubelet does
		e = ev(6250+[]int{800, 850, 870}[i], 6, "kubelet/node-2", a.Action+" nginx")
		a := a
		e.Runtime = &a
		out = append(out, e)
	}
	e = ev(8100, 7, "kubelet/node-2", "status Running")
	e.Status = &flow.StatusReport{User: "system:node:node-2", Patch: statusPatch, Phase: "Running"}
	out = append(out, e)
	e = ev(8101, 7, "apiserver", "PATCH pods/status admitted")
	e.Request = statusTrace
	out = append(out, e)
	e = ev(9110, 8, "apiserver", "update /registry/pods/default/nginx at 418")
	e.Etcd = &flow.EtcdWrite{Op: "update", Key: "/registry/pods/default/nginx", Revision: 418, PrevRevision: 415, Value: v418}
	out = append(out, e)
	out = append(out, gateHolds(ref)...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time.Before(out[j].Time) })
	for i := range out {
		out[i].Seq = uint64(i + 1)
	}
	return out
}

// fixtureAt is ms milliseconds after t0.
func fixtureAt(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// createTraces returns the create request's trace as stage 1 records it
// (up to admission) and complete, as the apiserver records it at the end.
func createTraces() (start, full *flow.RequestTrace) {
	createSteps := []flow.Step{
		{Name: "received", At: 0, Outcome: "ok", Detail: "POST /api/v1/namespaces/default/pods over HTTP/2.0 from 127.0.0.1:52814"},
		{Name: "goroutine", At: 9 * time.Microsecond, Outcome: "ok", Detail: "net/http's HTTP/2 server runs each stream (one request) on a goroutine of its own, beside the connection's reader; this request runs on goroutine 1234"},
		{Name: "authenticated", At: 41 * time.Microsecond, Outcome: "ok", Detail: `user "kubernetes-admin", groups [system:masters system:authenticated], by x509`},
		{Name: "authorized", At: 63 * time.Microsecond, Outcome: "allowed", Detail: `RBAC: allowed by ClusterRoleBinding "cluster-admin" of ClusterRole "cluster-admin" to Group "system:masters"`},
		{Name: "dispatched", At: 80 * time.Microsecond, Outcome: "ok", Detail: "go-restful: Container → WebService /api/v1 → Route POST /api/v1/namespaces/{namespace}/pods (createNamespacedPod)"},
		{Name: "decoded", At: 212 * time.Microsecond, Outcome: "ok", Detail: "231 bytes of application/json decoded as /v1, Kind=Pod"},
		{Name: "defaulted", At: 240 * time.Microsecond, Outcome: "defaulted", Detail: "defaults applied: spec.restartPolicy, spec.schedulerName, spec.dnsPolicy, status.qosClass"},
		{Name: "admission", At: 301 * time.Microsecond, Outcome: "passed", Detail: "mutating admission plugin ServiceAccount: passed"},
		{Name: "admission", At: 355 * time.Microsecond, Outcome: "passed", Detail: "validating admission plugin LimitRanger: passed"},
	}
	start = &flow.RequestTrace{AuditID: "3c1d9e5a", Method: "POST", URI: "/api/v1/namespaces/default/pods", Proto: "HTTP/2.0",
		RemoteAddr: "127.0.0.1:52814", UserAgent: "kubectl/v1.37.2", User: "kubernetes-admin", Groups: []string{"system:masters", "system:authenticated"},
		Verb: "create", Route: "POST /api/v1/namespaces/{namespace}/pods", Steps: createSteps}
	complete := *start
	complete.Steps = append(append([]flow.Step(nil), createSteps...),
		flow.Step{Name: "stored", At: 1204 * time.Millisecond, Outcome: "ok", Detail: "etcd create /registry/pods/default/nginx at revision 412"},
		flow.Step{Name: "responded", At: 1205 * time.Millisecond, Outcome: "ok", Detail: "status 201 Created, 1187 bytes"})
	complete.Code, complete.BytesSent, complete.Duration = 201, 1187, 1205*time.Millisecond
	return start, &complete
}

// statusPatchTrace returns the kubelet's status patch and the trace of
// its request, as stage 7 records them.
func statusPatchTrace() (patch string, trace *flow.RequestTrace) {
	patch = `{"status":{"conditions":[{"type":"Ready","status":"True","lastTransitionTime":"2026-01-02T10:00:07Z"}],"phase":"Running","podIP":"10.244.2.7","startTime":"2026-01-02T10:00:06Z","containerStatuses":[{"name":"nginx","ready":true,"started":true,"state":{"running":{"startedAt":"2026-01-02T10:00:07Z"}}}]}}`
	trace = &flow.RequestTrace{AuditID: "9b2e4f10", Method: "PATCH", URI: "/api/v1/namespaces/default/pods/nginx/status", Proto: "HTTP/2.0",
		RemoteAddr: "127.0.0.1:52890", User: "system:node:node-2", Groups: []string{"system:nodes", "system:authenticated"}, Verb: "patch",
		Route: "PATCH /api/v1/namespaces/{namespace}/pods/{name}/status",
		Steps: []flow.Step{
			{Name: "received", Outcome: "ok", Detail: "PATCH /api/v1/namespaces/default/pods/nginx/status over HTTP/2.0 from 127.0.0.1:52890"},
			{Name: "authenticated", At: 38 * time.Microsecond, Outcome: "ok", Detail: `user "system:node:node-2", groups [system:nodes system:authenticated], by x509`},
			{Name: "authorized", At: 55 * time.Microsecond, Outcome: "allowed", Detail: "Node authorizer: node-2 may update the status of pods bound to it"},
			{Name: "dispatched", At: 70 * time.Microsecond, Outcome: "ok", Detail: "go-restful: Container → WebService /api/v1 → Route PATCH /api/v1/namespaces/{namespace}/pods/{name}/status (patchNamespacedPodStatus)"},
			{Name: "decoded", At: 150 * time.Microsecond, Outcome: "ok", Detail: "388 bytes of application/strategic-merge-patch+json"},
		}}
	return patch, trace
}

// gateHolds returns the gate's holds of ref and their releases.
func gateHolds(ref flow.ObjectRef) []flow.Event {
	var out []flow.Event
	// the gate held the pod 900ms at each point, as in auto mode
	for _, h := range []struct {
		p  flow.Point
		ms int
	}{
		{flow.PointBeforePersist, 1}, {flow.PointBeforeSchedulerWatch, 1206}, {flow.PointBeforeScheduling, 2208},
		{flow.PointBeforeBinding, 3216}, {flow.PointBeforeKubeletWatch, 4231}, {flow.PointBeforeContainers, 5241},
		{flow.PointBeforeStatusReport, 7121}, {flow.PointBeforeStatusPersist, 8102},
	} {
		b := flow.Boundary{Point: h.p, Component: "gate", Object: ref}
		out = append(out,
			flow.Event{Component: "gate", Object: ref, Time: fixtureAt(h.ms), Hold: &flow.Hold{Boundary: b}},
			flow.Event{Component: "gate", Object: ref, Time: fixtureAt(h.ms + 900), Hold: &flow.Hold{Boundary: b, Released: true}})
	}
	return out
}

// heldAfter is the point where the gate holds the pod once stage s is
// complete (none after stage 8).
func heldAfter(s flow.Stage) (flow.Point, bool) {
	for _, p := range flow.Points {
		if p.After() == s && p != flow.PointBeforeContainers {
			return p, true
		}
	}
	return "", false
}

// upTo returns the events of stages 1..s (and the stage-0 events
// recorded among them), plus the hold at the boundary after s.
func upTo(s flow.Stage) []flow.Event {
	var out []flow.Event
	for _, e := range stageEvents() {
		if e.Hold != nil {
			if heldStage(e.Hold.Boundary.Point) > s {
				continue // not passed yet
			}
		} else if e.Stage > s || (e.Stage == 0 && s < flow.StagePersisted) {
			continue
		}
		out = append(out, e)
	}
	if p, ok := heldAfter(s); ok {
		last := out[len(out)-1]
		out = append(out, flow.Event{Component: "gate", Object: last.Object, Time: last.Time.Add(time.Millisecond),
			Hold: &flow.Hold{Boundary: flow.Boundary{Point: p, Component: last.Component, Object: last.Object}}})
	}
	return out
}

// history is etcd's MVCC history of the fixture's pod.
func history() map[historyKey][]byte {
	h := map[historyKey][]byte{}
	for _, e := range stageEvents() {
		if e.Etcd != nil {
			h[historyKey{e.Etcd.Key, e.Etcd.Revision}] = []byte(e.Etcd.Value)
		}
	}
	return h
}

// fakeDriver starts fakeSessions.
type fakeDriver struct {
	mu     sync.Mutex
	starts []string
	// play, when set, is run by each session in its own goroutine.
	play func(s *fakeSession)
	last *fakeSession
}

func (d *fakeDriver) Scenarios() []ScenarioInfo { return testInfos }

func (d *fakeDriver) Start(ctx context.Context, name string, opts StartOptions) (Session, error) {
	if name == "broken" {
		return nil, errors.New("no such scenario")
	}
	s := newFakeSession(opts)
	d.mu.Lock()
	d.starts = append(d.starts, name)
	d.last = s
	d.mu.Unlock()
	if d.play != nil {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			d.play(s)
		}()
	}
	return s, nil
}

func (d *fakeDriver) session() *fakeSession {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.last
}

// fakeSession is a Session whose events the test makes up; its gate is
// a real flow.Gate.
type fakeSession struct {
	events chan flow.Event
	steps  chan StepUpdate
	done   chan struct{}
	stop   chan struct{}
	gate   *flow.Gate
	rec    *flow.Recorder
	sub    *flow.Subscription
	wg     sync.WaitGroup
	once   sync.Once

	mu     sync.Mutex
	closed bool
	err    error
}

func newFakeSession(opts StartOptions) *fakeSession {
	rec := flow.NewRecorder()
	s := &fakeSession{
		steps: make(chan StepUpdate, 16),
		done:  make(chan struct{}),
		stop:  make(chan struct{}),
		rec:   rec,
		gate:  flow.NewGate(opts.Mode, AutoDelay(opts.Speed), rec),
	}
	s.sub = rec.Subscribe(0)
	return s
}

func (s *fakeSession) Events() <-chan flow.Event { return s.sub.Events() }
func (s *fakeSession) Steps() <-chan StepUpdate  { return s.steps }
func (s *fakeSession) Gate() *flow.Gate          { return s.gate }
func (s *fakeSession) Kubeconfig() string        { return "/tmp/kubesim/admin.kubeconfig" }
func (s *fakeSession) RESTConfig() *rest.Config  { return nil }
func (s *fakeSession) Done() <-chan struct{}     { return s.done }
func (s *fakeSession) Err() error                { s.mu.Lock(); defer s.mu.Unlock(); return s.err }

func (s *fakeSession) History(_ context.Context, key string, rev int64) ([]byte, error) {
	if v, ok := history()[historyKey{key, rev}]; ok {
		return v, nil
	}
	return nil, fmt.Errorf("revision %d of %s: required revision has been compacted", rev, key)
}

func (s *fakeSession) Close() error {
	s.once.Do(func() {
		close(s.stop)
		s.wg.Wait()
		s.sub.Close()
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
	})
	return nil
}

func (s *fakeSession) isClosed() bool { s.mu.Lock(); defer s.mu.Unlock(); return s.closed }

// playStages records the fixture's events, waiting at the gate at each
// boundary as the real components do, then ends the scenario.
func playStages(s *fakeSession) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	step := testStep
	s.steps <- step
	for _, e := range stageEvents() {
		s.rec.Record(e)
		if e.Stage == 0 {
			continue
		}
		if p, ok := heldAfter(e.Stage); ok && isLastOfStage(e) {
			if err := s.gate.Wait(ctx, flow.Boundary{Point: p, Component: e.Component, Object: e.Object}); err != nil {
				return
			}
		}
	}
	step.Done, step.Result = true, "pod/nginx created"
	s.steps <- step
	close(s.steps)
	close(s.done)
}

// isLastOfStage reports whether e is the last event of its stage in the
// fixture.
func isLastOfStage(e flow.Event) bool {
	evs := stageEvents()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Stage == e.Stage {
			return evs[i].Seq == e.Seq
		}
	}
	return false
}

// noHolds returns evs without the gate's Hold events.
func noHolds(evs []flow.Event) []flow.Event {
	var out []flow.Event
	for _, e := range evs {
		if e.Hold == nil {
			out = append(out, e)
		}
	}
	return out
}
