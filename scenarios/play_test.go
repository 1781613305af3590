package scenarios_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/scenarios"
)

// playTimeout bounds a whole Play in tests, so a hang fails the test
// (the steps' own timeouts catch one sooner).
const playTimeout = waitfor.Cap

// patience is the tests' Options.Patience: every lesson plays at once
// here, on a machine that may be starved, and a step that takes longer
// than its usual timeout still progresses. A step's 30 s become
// waitfor.Stall.
const patience = float64(waitfor.Stall / scenarios.DefaultTimeout)

// mustStartCluster starts the cluster s asks for, at speed 0, on a free
// loopback port with its state in a fresh temporary directory, and closes
// it when the test ends.
func mustStartCluster(tb testing.TB, s *scenarios.Scenario) *cluster.Cluster {
	tb.Helper()
	return mustStartClusterWith(tb, s, nil)
}

// mustStartClusterWith is mustStartCluster with gate (if not nil) as the
// cluster's gate, recording to the cluster's recorder. On cleanup the
// gate is opened first, so that nothing held keeps the cluster from
// stopping.
func mustStartClusterWith(tb testing.TB, s *scenarios.Scenario, gate func(*flow.Recorder) *flow.Gate) *cluster.Cluster {
	tb.Helper()
	return clustertest.Start(tb, s.Configure, func(cfg *cluster.Config) {
		cfg.Speed = 0
		if gate != nil {
			cfg.Recorder = flow.NewRecorder()
			cfg.Gate = gate(cfg.Recorder)
		}
	})
}

func mustFind(tb testing.TB, name string) *scenarios.Scenario {
	tb.Helper()
	s, err := scenarios.Find(name)
	if err != nil {
		tb.Fatalf("Find(%q): %v", name, err)
	}
	return s
}

func play(tb testing.TB, c *cluster.Cluster, s *scenarios.Scenario, obs scenarios.Observer) error {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), playTimeout)
	defer cancel()
	return scenarios.Play(ctx, c, s, scenarios.Options{Lang: "en", Speed: 0, Observer: obs, Patience: patience})
}

func TestPlayPodCreate(t *testing.T) {
	s := mustFind(t, "pod-create")
	c := mustStartCluster(t, s)
	var out bytes.Buffer
	if err := play(t, c, s, scenarios.NewPlainPrinter(&out, "en")); err != nil {
		t.Fatalf("Play(pod-create) = %v, want nil\noutput:\n%s", err, out.String())
	}
	text := out.String()
	pos := 0
	for i, st := range flow.Stages {
		header := "[" + string(rune('1'+i)) + "/8] " + st.Title.En
		j := strings.Index(text[pos:], header)
		if j < 0 {
			t.Fatalf("plain output: header %q missing (or out of order)\noutput:\n%s", header, text)
		}
		pos += j + len(header)
	}
	for _, want := range []string{"etcd create /registry/pods/default/nginx", "watch event ADDED", "chosen: node-", "runtime", "PATCH pods/status as system:node:",
		`+ spec.nodeName: "node-`, `~ status.phase: "Pending" → "Running"`} {
		if !strings.Contains(text, want) {
			t.Errorf("plain output lacks %q\noutput:\n%s", want, text)
		}
	}
}

func TestPlayFailingExpectation(t *testing.T) {
	s, err := scenarios.Parse("fail.yaml", []byte(`name: fail
title: {en: Fail, zh: 失败}
summary: {en: A pod that never fails, zh: 一个不会失败的 Pod}
cluster: {nodes: 1}
steps:
  - id: create
    narration: {en: Create it., zh: 创建它。}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec:
        containers: [{name: web, image: nginx:1.27}]
    expect:
      - podPhase: {pod: web, phase: Running}
  - id: expect-failed
    narration: {en: Wait for what never comes., zh: 等一个不会到来的结果。}
    timeout: 300ms
    expect:
      - podPhase: {pod: web, phase: Failed}
  - id: never-run
    narration: {en: Not reached., zh: 不会执行。}
    delete: {kind: Pod, name: web}
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	c := mustStartCluster(t, s)
	rec := &recordingObserver{}
	err = play(t, c, s, rec)
	var ee *scenarios.ExpectationError
	if !errors.As(err, &ee) {
		t.Fatalf("Play = %v, want an *ExpectationError", err)
	}
	if ee.Step != 2 || ee.StepID != "expect-failed" {
		t.Errorf("ExpectationError names step %d (%s), want 2 (expect-failed)", ee.Step, ee.StepID)
	}
	// The timeout the step had: its 300ms, times the tests' patience.
	want := fmt.Sprintf("step 2 (expect-failed): expected podPhase Failed for web, saw Running after %s", time.Duration(patience*float64(300*time.Millisecond)))
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err.Error(), want)
	}
	if got := rec.finished; len(got) != 2 || got[1].Err == nil {
		t.Errorf("observer saw %d finished steps (last with error %v), want 2, the last failed", len(got), got)
	}
}

func TestPlayActionResults(t *testing.T) {
	s, err := scenarios.Parse("results.yaml", []byte(`name: results
title: {en: Results, zh: 结果}
summary: {en: Status codes of actions, zh: 动作的状态码}
cluster: {nodes: 1}
steps:
  - narration: {en: Create., zh: 创建。}
    create: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec:
        containers: [{name: web, image: nginx:1.27}]
    expect:
      - status: 201
  - narration: {en: Again., zh: 再来一次。}
    create: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec:
        containers: [{name: web, image: nginx:1.27}]
    expect:
      - status: 409
      - message: already exists
  - narration: {en: Forbidden., zh: 禁止。}
    as: student
    delete: {kind: Pod, name: web}
    expect:
      - status: 403
  - narration: {en: Stale write., zh: 过期的写入。}
    update: {kind: Pod, name: web, labels: {a: b}, resourceVersion: stale}
    expect:
      - status: 409
  - narration: {en: Current write., zh: 当前版本的写入。}
    update: {kind: Pod, name: web, labels: {a: b}}
    expect:
      - status: 200
  - narration: {en: Watch it over HTTP/1.1., zh: 用 HTTP/1.1 Watch 它。}
    http: {path: "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb", mode: watch, proto: http1, count: 1}
    expect:
      - status: 200
      - watchEvents: [ADDED]
  - narration: {en: Watch it over HTTP/2., zh: 用 HTTP/2 Watch 它。}
    http: {path: "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dweb", mode: watch, count: 1}
    expect:
      - watchEvents: [ADDED]
  - narration: {en: Delete., zh: 删除。}
    delete: {kind: Pod, name: web, gracePeriodSeconds: 0, wait: true}
    expect:
      - absent: {kind: Pod, name: web}
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	c := mustStartCluster(t, s)
	rec := &recordingObserver{}
	if err := play(t, c, s, rec); err != nil {
		t.Fatalf("Play = %v", err)
	}
	http1 := strings.Join(rec.finished[5].HTTP, "\n")
	for _, want := range []string{"< HTTP/1.1 200", "Transfer-Encoding: chunked", "< chunk \""} {
		if !strings.Contains(http1, want) {
			t.Errorf("HTTP/1.1 watch transcript lacks %q:\n%s", want, http1)
		}
	}
}

// recordingObserver keeps what Play reported.
type recordingObserver struct {
	started  []scenarios.StepInfo
	finished []scenarios.StepResult
}

func (r *recordingObserver) StepStarted(s scenarios.StepInfo) { r.started = append(r.started, s) }
func (r *recordingObserver) StepFinished(_ scenarios.StepInfo, res scenarios.StepResult) {
	r.finished = append(r.finished, res)
}

// TestLibraryPlays runs every library scenario headless at speed 0, each
// on its own cluster, and checks that the run answered each of its
// questions with one of the question's choices.
func TestLibraryPlays(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatalf("Library: %v", err)
	}
	for _, s := range lib {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			c := mustStartCluster(t, s)
			var out bytes.Buffer
			answers := &answeredQuestions{inner: scenarios.NewPlainPrinter(&out, "en")}
			if err := play(t, c, s, answers); err != nil {
				t.Fatalf("Play(%s) = %v\noutput:\n%s", s.Name, err, out.String())
			}
			answers.check(t)
		})
	}
}

// resultRecorder keeps every step's result.
type resultRecorder struct {
	results map[string]scenarios.StepResult
}

func (r *resultRecorder) StepStarted(scenarios.StepInfo) {}
func (r *resultRecorder) StepFinished(s scenarios.StepInfo, res scenarios.StepResult) {
	r.results[s.ID] = res
}

func TestStepRequestTraces(t *testing.T) {
	s := mustFind(t, "request-lifecycle")
	c := mustStartCluster(t, s)
	rec := &resultRecorder{results: map[string]scenarios.StepResult{}}
	if err := play(t, c, s, rec); err != nil {
		t.Fatalf("Play: %v", err)
	}
	steps := func(tr *flow.RequestTrace) []string {
		var names []string
		for _, st := range tr.Steps {
			names = append(names, st.Name+":"+st.Outcome)
		}
		return names
	}
	// The forbidden read: one request, stopped by authorization before
	// any route was chosen.
	res := rec.results["forbidden"]
	if len(res.Requests) != 1 {
		t.Fatalf("forbidden: %d request traces, want 1", len(res.Requests))
	}
	tr := res.Requests[0]
	got := strings.Join(steps(tr), " ")
	if tr.Code != 403 || tr.User != "student" || tr.Route != "" || !strings.Contains(got, "authorized:denied") || strings.Contains(got, "dispatched") {
		t.Errorf("forbidden: code %d user %q route %q steps %s; want 403 as student, denied, no dispatch", tr.Code, tr.User, tr.Route, got)
	}
	// The read that goes through: dispatched to its route.
	res = rec.results["get-dispatch"]
	if len(res.Requests) != 1 || res.Requests[0].Route != "GET /api/v1/namespaces/{namespace}/pods/{name}" || res.Requests[0].Code != 200 {
		t.Errorf("get-dispatch: traces %+v; want one 200 on the pod route", res.Requests)
	}
	// The create: the trace of the whole request, not stage 1's part.
	res = rec.results["create"]
	if len(res.Requests) != 1 || res.Requests[0].Code != 201 {
		t.Fatalf("create: traces %+v; want one 201", res.Requests)
	}
	if got := strings.Join(steps(res.Requests[0]), " "); !strings.Contains(got, "responded") {
		t.Errorf("create: the trace stops early: %s", got)
	}
}

func TestPlainShowsFailedAttempts(t *testing.T) {
	s := mustFind(t, "unschedulable-then-node-added")
	c := mustStartCluster(t, s)
	var out bytes.Buffer
	if err := play(t, c, s, scenarios.NewPlainPrinter(&out, "en")); err != nil {
		t.Fatalf("Play: %v\n%s", err, out.String())
	}
	text := out.String()
	// The attempt that found no node is not a stage, but it is the lesson.
	for _, want := range []string{
		"· scheduling attempt 1: 2 nodes",
		"·   node-1       filtered out by NodeResourcesFit: Insufficient cpu",
		"· no node fits: 0/2 nodes are available: 2 Insufficient cpu.",
		"scheduling attempt 2: 3 nodes",
		"* node-big",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q\n%s", want, text)
		}
	}
	if a, b := strings.Index(text, "scheduling attempt 1"), strings.Index(text, "[4/8]"); a < 0 || b < a {
		t.Errorf("the failed attempt should come before stage 4 (at %d and %d)", a, b)
	}
}

// TestHeldTimeDoesNotCount: a learner holding the cluster longer than a
// step's timeout does not make the step fail; the runner also waits at
// the next-step point before each action. The step only creates the pod
// (status 201): what is not held, two requests, fits in its timeout
// however busy the machine, and the hold before the pod is persisted
// lasts longer than it.
func TestHeldTimeDoesNotCount(t *testing.T) {
	s, err := scenarios.Parse("held.yaml", []byte(`name: held
title: {en: Held, zh: 暂停}
summary: {en: A held pod., zh: 一个被暂停的 Pod。}
cluster: {nodes: 1}
steps:
  - id: run
    narration: {en: Run a pod., zh: 运行一个 Pod。}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx}]}
    expect:
      - status: 201
    timeout: 3s
`))
	if err != nil {
		t.Fatal(err)
	}
	c := mustStartClusterWith(t, s, func(rec *flow.Recorder) *flow.Gate { return flow.NewGate(flow.ModeStep, 0, rec) })
	gate := c.Gate
	ctx, cancel := context.WithTimeout(context.Background(), playTimeout)
	defer cancel()
	played := make(chan error, 1)
	waitCtx, stopWaiting := context.WithCancel(ctx)
	go func() {
		played <- scenarios.Play(ctx, c, s, scenarios.Options{Speed: 0, Gate: gate})
		stopWaiting() // a Play that ends early ends the stepping too
	}()

	var points []flow.Point
	for {
		held, err := gate.WaitHeld(waitCtx)
		if err != nil {
			break
		}
		for _, b := range held {
			points = append(points, b.Point)
		}
		if len(points) == 2 {
			// Held at the first point of the pod for longer than the
			// step's timeout of 3s.
			time.Sleep(3500 * time.Millisecond)
		}
		gate.Advance()
	}
	if err := <-played; err != nil {
		t.Fatalf("Play = %v, want nil: held time must not count", err)
	}
	if points[0] != flow.PointNextStep || points[1] != flow.PointBeforePersist {
		t.Errorf("holds %v: want next-step first, then before-persist", points)
	}
}

// TestPlayApplyExisting: applying a manifest again to a pod that the
// scheduler and the kubelet have written patches it, as kubectl apply
// does: the new label arrives, the node and the phase stay; the same
// manifest once more changes nothing.
func TestPlayApplyExisting(t *testing.T) {
	manifest := `
      apiVersion: v1
      kind: Pod
      metadata: {name: web, labels: {app: web%s}}
      spec:
        containers: [{name: web, image: nginx:1.27}]`
	s, err := scenarios.Parse("reapply.yaml", []byte(`name: reapply
title: {en: Reapply, zh: 再次 apply}
summary: {en: Apply twice, zh: 两次 apply}
cluster: {nodes: 1}
steps:
  - narration: {en: Run it., zh: 运行它。}
    apply: |`+fmt.Sprintf(manifest, "")+`
    expect:
      - podPhase: {pod: web, phase: Running}
  - narration: {en: Add a label., zh: 加一个标签。}
    apply: |`+fmt.Sprintf(manifest, ", tier: front")+`
    expect:
      - status: 200
      - message: Pod default/web configured
      - podPhase: {pod: web, phase: Running}
  - narration: {en: Again., zh: 再来一次。}
    apply: |`+fmt.Sprintf(manifest, ", tier: front")+`
    expect:
      - message: Pod default/web unchanged
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	c := mustStartCluster(t, s)
	rec := &recordingObserver{}
	if err := play(t, c, s, rec); err != nil {
		t.Fatalf("Play = %v", err)
	}
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	pod, err := admin.CoreV1().Pods("default").Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Labels["tier"] != "front" || pod.Spec.NodeName == "" || pod.Annotations[corev1.LastAppliedConfigAnnotation] == "" {
		t.Errorf("labels %v, nodeName %q, annotations %v: want tier=front, still bound, the last applied configuration kept", pod.Labels, pod.Spec.NodeName, pod.Annotations)
	}
	if reqs := rec.finished[1].Requests; len(reqs) != 2 || reqs[0].Method != "GET" || reqs[1].Method != "PATCH" {
		t.Errorf("the second apply sent %d requests (%v), want a GET and a PATCH", len(reqs), reqs)
	}
}
