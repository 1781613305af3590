package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// runMain runs the command line args as main would, with stdin in, and
// returns the exit code and both outputs.
func runMain(t *testing.T, in string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newRootCommand(strings.NewReader(in), &out, &errb)
	cmd.SetArgs(args)
	code = exitCode(cmd.ExecuteContext(context.Background()), &errb)
	return code, out.String(), errb.String()
}

func TestPlayPodCreatePlain(t *testing.T) {
	code, out, errs := runMain(t, "", "play", "pod-create", "--plain", "--speed", "0", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	// The eight stage headers, in order, each with real evidence after it.
	last := -1
	for i, h := range []string{
		"[1/8] Request admitted", "[2/8] Pod stored in etcd", "[3/8] Scheduler notified by watch",
		"[4/8] Node chosen and bound", "[5/8] Binding stored in etcd", "[6/8] Kubelet creates the containers",
		"[7/8] Kubelet reports status", "[8/8] Status stored in etcd",
	} {
		at := strings.Index(out, h)
		if at < 0 || at < last {
			t.Fatalf("stage %d header %q missing or out of order (at %d, previous at %d):\n%s", i+1, h, at, last, out)
		}
		last = at
	}
	for _, re := range []string{
		`route  POST /api/v1/namespaces/\{namespace\}/pods`,
		`etcd create /registry/pods/default/nginx\n\s+revision \d+ = resourceVersion "\d+"`,
		`watch event ADDED, resourceVersion \d+\n\s+to system:kube-scheduler`,
		`chosen: node-\d`,
		`runtime start\s+nginx`,
		`PATCH pods/status as system:node:node-\d: phase Running`,
		`etcd update /registry/pods/default/nginx\n\s+revision \d+ \(previous revision \d+\)`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output lacks %s", re)
		}
	}
	if !strings.Contains(errs, "export KUBECONFIG=") || strings.Contains(out, "export KUBECONFIG=") {
		t.Errorf("stderr does not say how to reach the cluster, or stdout does: stdout is the lesson alone")
	}
	// Without --step the questions are printed with their answers.
	for _, want := range []string{
		"? The API server stores the pod. Which status code does it answer the create with?\n    1. 200 OK\n    2. 201 Created\n",
		"answer: 2. 201 Created (the run's status code of the action's request: 201)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestPlayStepHoldsUntilEnter(t *testing.T) {
	// Fourteen Enters: one per gate point of the pod, one before each of
	// the six steps. With fewer the input would close first and the
	// rest would run without holding (which the test would see).
	code, out, errs := runMain(t, strings.Repeat("\n", 14), "play", "pod-create", "--step", "--speed", "0", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	if n := strings.Count(errs, "press Enter"); n != 14 {
		t.Errorf("%d holds announced, want 14 (8 points, 6 steps):\n%s", n, errs)
	}
	if n := strings.Count(errs, "next: step "); n != 6 {
		t.Errorf("%d step holds announced, want 6:\n%s", n, errs)
	}
	if strings.Contains(errs, "input closed") {
		t.Errorf("the input ran out before the pod got through:\n%s", errs)
	}
	if !strings.Contains(out, "[8/8]") {
		t.Errorf("no stage 8 in the output")
	}
	// Its four questions, each skipped by an empty line, are asked on
	// stderr, not printed on stdout too.
	if n := strings.Count(errs, "· skipped: answer: "); n != 4 || !strings.Contains(errs, "questions: 0 of 0 right, 4 skipped") {
		t.Errorf("%d questions skipped, want 4 and the score line:\n%s", n, errs)
	}
	if strings.Contains(out, "answer: ") {
		t.Errorf("the answers are on stdout too:\n%s", out)
	}
}

func TestPlayJSON(t *testing.T) {
	code, out, errs := runMain(t, "", "play", "pod-create", "--json", "--speed", "0", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	stages := map[float64]bool{}
	steps, questions, answers := 0, 0, 0
	for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Fatalf("line %d is not JSON: %v: %q", i+1, err, line)
		}
		switch obj["type"] {
		case "step":
			steps++
			if _, ok := obj["question"].(map[string]any); ok && obj["phase"] == "started" {
				questions++
			}
			if a, ok := obj["answer"].(map[string]any); ok && obj["phase"] == "passed" && a["fact"] != "" {
				answers++
			}
		case "event":
			ev, _ := obj["event"].(map[string]any)
			if st, ok := ev["stage"].(float64); ok && st != 0 {
				stages[st] = true
			}
		default:
			t.Fatalf("line %d: unknown type %v", i+1, obj["type"])
		}
	}
	if len(stages) != 8 || steps == 0 {
		t.Errorf("stages seen %v (want 1..8), %d step objects", stages, steps)
	}
	if questions != 4 || answers != 4 {
		t.Errorf("%d started steps with a question, %d passed steps with an answer; want pod-create's 4", questions, answers)
	}
}

func TestPlayErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\ntitle: {en: Bad}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	failing := filepath.Join(dir, "failing.yaml")
	if err := os.WriteFile(failing, []byte(`name: failing
title: {en: Failing, zh: 失败}
summary: {en: An expectation that cannot hold., zh: 一个不会成立的期望。}
cluster: {nodes: 1}
steps:
  - id: never-failed
    narration: {en: The pod runs; it will not fail., zh: Pod 会运行，不会失败。}
    apply: |
      apiVersion: v1
      kind: Pod
      metadata: {name: web}
      spec: {containers: [{name: web, image: nginx}]}
    expect:
      - podPhase: {pod: web, phase: Failed}
    timeout: 1s
`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"unknown scenario", []string{"play", "no-such-scenario"}, 2, "no-such-scenario"},
		{"bad file", []string{"play", bad}, 2, bad + ":2:8: title: missing zh"},
		{"bad language", []string{"play", "pod-create", "--lang", "fr"}, 2, "--lang must be en or zh"},
		{"plain and json", []string{"play", "pod-create", "--plain", "--json"}, 2, "cannot be used together"},
		{"compact and json", []string{"play", "pod-create", "--compact", "--json"}, 2, "--compact belongs to --plain"},
		{"no name", []string{"play"}, 2, "accepts 1 arg"},
		{"failed expectation", []string{"play", failing, "--speed", "0", "--data-dir", filepath.Join(dir, "data")}, 1, "step 1 (never-failed): expected podPhase"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, errs := runMain(t, "", tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit %d, want %d; stderr %q", code, tt.wantCode, errs)
			}
			if !strings.Contains(errs, tt.wantErr) {
				t.Errorf("stderr %q, want it to contain %q", errs, tt.wantErr)
			}
		})
	}
}

func TestScenariosCommand(t *testing.T) {
	for _, tc := range []struct{ lang, want string }{{"en", "the eight stages"}, {"zh", "八个阶段"}} {
		code, out, errs := runMain(t, "", "scenarios", "--lang", tc.lang)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if !strings.Contains(out, "pod-create") || !strings.Contains(out, tc.want) {
			t.Errorf("scenarios --lang %s: want pod-create and %q in:\n%s", tc.lang, tc.want, out)
		}
	}
}

// TestNoArgsPlaysTheDefault: `kubesim` alone, without a terminal, plays
// pod-create as plain text.
func TestNoArgsPlaysTheDefault(t *testing.T) {
	code, out, errs := runMain(t, "", "--speed", "0", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errs)
	}
	if !strings.Contains(errs, `playing "pod-create"`) || !strings.Contains(out, "[8/8] Status stored in etcd") {
		t.Errorf("kubesim alone did not play pod-create to stage 8:\n%s", out)
	}
}

// TestScenarioClusterLeavesCompactionToTheSteps: a scenario's cluster
// has no compactor (a class may pause longer than its interval), while
// serve keeps kube-apiserver's.
func TestScenarioClusterLeavesCompactionToTheSteps(t *testing.T) {
	sc, err := scenarios.Find("etcd-mvcc-history")
	if err != nil {
		t.Fatal(err)
	}
	if got := scenarioCluster(sc, "", 0, -1, flow.ModeAuto, 0).EtcdCompactionInterval; got != 0 {
		t.Errorf("scenario cluster compaction interval = %v, want 0", got)
	}
	if got := cluster.NewConfig().EtcdCompactionInterval; got != apiserver.DefaultCompactionInterval {
		t.Errorf("default compaction interval = %v, want %v", got, apiserver.DefaultCompactionInterval)
	}
}
