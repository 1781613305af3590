package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/scenarios"
)

// header is the start of a valid scenario, 3 lines long; steps follow.
const header = "name: t\ntitle: {en: T, zh: 标题}\nsummary: {en: S, zh: 摘要}\n"

// step is a valid step (lines 5-6 when it follows header and "steps:").
const step = "  - narration: {en: N, zh: 旁白}\n"

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // "line:col: message"
	}{
		{"yaml syntax", header + "steps:\n\t- x\n", "5:1: invalid YAML: found character that cannot start any token"},
		{"unknown top-level field", header + "stpes: []\n", `4:1: scenario: unknown field "stpes" (allowed: name, title, summary, level, cluster, steps)`},
		{"missing steps", header, `1:1: scenario: missing field "steps"`},
		{"bad name", "name: Pod_Create\n", `1:7: name: "Pod_Create" is not a valid name (lowercase letters, digits and '-', starting and ending with a letter or digit)`},
		{"name wrong type", "name: [a]\n", `1:7: name: expected a string, got a list`},
		{"title missing zh", "name: t\ntitle: {en: T}\n", `2:8: title: missing zh`},
		{"summary unknown language", "name: t\ntitle: {en: T, zh: 标题}\nsummary: {en: S, zh: 摘要, fr: R}\n", `3:26: summary: unknown field "fr" (allowed: en, zh)`},
		{"narration missing zh", header + "steps:\n  - narration: {en: N}\n", `5:16: narration: missing zh`},
		{"narration empty en", header + "steps:\n  - narration: {en: '', zh: 旁白}\n", `5:21: narration: missing en`},
		{"bad level", header + "level: expert\nsteps:\n" + step, `4:8: level: "expert" is not one of beginner, intermediate, advanced`},
		{"bad condition status", header + "steps:\n" + step + "    expect:\n      - condition: {kind: APIService, name: v1.example.com, type: Available, status: Yes}\n", `7:86: condition.status: "Yes" is not one of True, False, Unknown`},
		{"cluster wrong type", header + "cluster: {nodes: three}\nsteps:\n" + step, `4:18: cluster.nodes: expected a number of nodes or a list of nodes, got a string ("three")`},
		{"cluster unknown field", header + "cluster: {nodez: 3}\nsteps:\n" + step, `4:11: cluster: unknown field "nodez" (allowed: nodes, scheduler, speed, topology)`},
		{"bad topology", header + "cluster: {topology: triple}\nsteps:\n" + step, `4:21: cluster.topology: "triple" is not one of single, ha`},
		{"server out of range", header + "steps:\n" + step + "    server: 3\n", `6:13: server: 3: the API servers of a cluster of topology ha are 1 to 2`},
		{"stop own API server", header + "steps:\n  - narration: {en: N, zh: 旁白}\n    stopAPIServer: 1\n", `6:20: stopAPIServer: 1: the API servers that can stop are 2 to 2 (1 is the cluster's own)`},
		{"bad quantity", header + "cluster:\n  nodes:\n    - {name: n1, cpu: lots}\nsteps:\n" + step, `6:23: cluster.nodes[0].cpu: "lots" is not a quantity (like 4, 500m, 8Gi)`},
		{"bad taint effect", header + "cluster:\n  nodes:\n    - name: n1\n      taints: [{key: k, effect: Never}]\nsteps:\n" + step, `7:33: cluster.nodes[0].taints[0].effect: "Never" is not one of NoSchedule, PreferNoSchedule, NoExecute`},
		{"steps not a list", header + "steps: {}\n", `4:8: steps: expected a list, got a mapping`},
		{"no steps", header + "steps: []\n", `4:8: steps: a scenario needs at least one step`},
		{"unknown step field", header + "steps:\n  - narration: {en: N, zh: 旁白}\n    aply: x\n", `6:5: step 1: unknown field "aply" (allowed: id, narration, question, as, server, ` + strings.Join(scenarios.ActionKeys(), ", ") + `, wait, expect, timeout)`},
		{"missing narration", header + "steps:\n  - id: a\n", `5:5: step 1: missing field "narration"`},
		{"two actions", header + "steps:\n" + step + "    removeNode: n1\n    stopScheduler: true\n", `7:5: step 1: two actions, removeNode and stopScheduler (a step has at most one)`},
		{"duplicate id", header + "steps:\n  - {id: a, narration: {en: N, zh: 旁白}}\n  - {id: a, narration: {en: N, zh: 旁白}}\n", `6:5: step 2: id "a" is used twice`},
		{"bad id", header + "steps:\n  - {id: A_1, narration: {en: N, zh: 旁白}}\n", `5:10: id: "A_1" is not a valid name (lowercase letters, digits and '-', starting and ending with a letter or digit)`},
		{"unknown user", header + "steps:\n" + step + "    as: root\n", `6:9: as: unknown user "root" (use admin, student, system:kube-scheduler or system:node:<node>)`},
		{"bool action false", header + "steps:\n" + step + "    stopScheduler: false\n", `6:20: stopScheduler: must be true (leave the action out to not do it)`},
		{"bool action wrong type", header + "steps:\n" + step + "    compactEtcd: yes please\n", `6:18: compactEtcd: expected true or false, got a string ("yes please")`},
		{"bad duration", header + "steps:\n" + step + "    wait: 2 seconds\n", `6:11: wait: bad duration "2 seconds" (use a number with a unit: 500ms, 2s, 1m)`},
		{"duration wrong type", header + "steps:\n" + step + "    timeout: [1s]\n", `6:14: timeout: expected a duration such as 2s or 500ms, got a list`},
		{"unknown kind", header + "steps:\n" + step + "    delete: {kind: Widget, name: web}\n", `6:20: delete.kind: unknown kind "Widget" (known: ` + strings.Join(scenarios.KindNames, ", ") + `)`},
		{"delete unknown field", header + "steps:\n" + step + "    delete: {kind: Pod, name: web, grace: 3}\n", `6:36: delete: unknown field "grace" (allowed: kind, name, namespace, gracePeriodSeconds, propagationPolicy, wait)`},
		{"bad object name", header + "steps:\n" + step + "    delete: {kind: Pod, name: Web_1}\n", `6:31: delete.name: "Web_1" is not a valid object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{"patch not json", header + "steps:\n" + step + "    patch: {kind: Pod, name: web, patch: '{a'}\n", `6:42: patch.patch: not valid JSON`},
		{"update bad resourceVersion", header + "steps:\n" + step + "    update: {kind: Pod, name: web, resourceVersion: old}\n", `6:53: update.resourceVersion: "old" is not current, stale or a number`},
		{"http bad mode", header + "steps:\n" + step + "    http: {path: /api, mode: stream}\n", `6:30: http.mode: "stream" is not one of request, poll, longpoll, watch`},
		{"http bad proto", header + "steps:\n" + step + "    http: {path: /api, proto: http3}\n", `6:31: http.proto: "http3" is not one of http1, http2`},
		{"http relative path", header + "steps:\n" + step + "    http: {path: api}\n", `6:18: http.path: "api" must start with /`},
		{"http count wrong type", header + "steps:\n" + step + "    http: {path: /api, mode: poll, count: many}\n", `6:43: http.count: expected an integer, got a string ("many")`},
		{"expect not a list", header + "steps:\n" + step + "    expect: {status: 200}\n", `6:13: expect: expected a list, got a mapping`},
		{"unknown expectation", header + "steps:\n" + step + "    expect:\n      - podstage: {pod: web, stage: 8}\n", `7:9: unknown expectation "podstage" (known: ` + strings.Join(scenarios.ExpectKeys(), ", ") + `)`},
		{"two keys in an expectation", header + "steps:\n" + step + "    expect:\n      - {status: 200, message: ok}\n", `7:9: expect: each item has exactly one key, one of ` + strings.Join(scenarios.ExpectKeys(), ", ")},
		{"canI missing verb", header + "steps:\n" + step + "    expect:\n      - canI: {user: student, resource: pods}\n", `7:15: canI: missing field "verb"`},
		{"canI unknown user", header + "steps:\n" + step + "    expect:\n      - canI: {user: bob, verb: get, resource: pods}\n", `7:22: canI.user: unknown user "bob" (use admin, student, system:kube-scheduler or system:node:<node>)`},
		{"canI allowed not a bool", header + "steps:\n" + step + "    expect:\n      - canI: {user: student, verb: get, resource: pods, allowed: maybe}\n", `7:67: canI.allowed: expected true or false, got a string ("maybe")`},
		{"bad stage number", header + "steps:\n" + step + "    expect:\n      - podStage: {pod: web, stage: 9}\n", `7:37: podStage.stage: 9 is not a stage (1 to 8, or one of admitted, persisted, scheduler-notified, scheduled, binding-persisted, kubelet-notified, status-reported, status-persisted)`},
		{"bad stage name", header + "steps:\n" + step + "    expect:\n      - podStage: {pod: web, stage: running}\n", `7:37: podStage.stage: "running" is not a stage (1 to 8, or one of admitted, persisted, scheduler-notified, scheduled, binding-persisted, kubelet-notified, status-reported, status-persisted)`},
		{"bad phase", header + "steps:\n" + step + "    expect:\n      - podPhase: {pod: web, phase: Done}\n", `7:37: podPhase.phase: "Done" is not one of Pending, Running, Succeeded, Failed, Unknown`},
		{"status wrong type", header + "steps:\n" + step + "    expect:\n      - status: \"200\"\n", `7:17: status: expected an integer, got a string ("200")`},
		{"bad watch event type", header + "steps:\n" + step + "    expect:\n      - watchEvents: [ADDED, CHANGED]\n", `7:30: watchEvents[1]: "CHANGED" is not one of ADDED, MODIFIED, DELETED, BOOKMARK, ERROR, PUT, DELETE`},
		{"manifest unknown field", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: Pod\n      metadata:\n        name: web\n      spec:\n        contianers: []\n", `12:9: manifest: unknown field "spec.contianers"`},
		{"manifest wrong type", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: Pod\n      metadata:\n        name: web\n      spec:\n        restartPolicy: 3\n", `12:9: manifest: spec.restartPolicy: expected v1.RestartPolicy, got a number`},
		{"manifest unsupported kind", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: PodTemplate\n      metadata: {name: web}\n", `8:7: manifest: unsupported kind "PodTemplate" (supported: ` + strings.Join(scenarios.KindNames, ", ") + `)`},
		{"manifest without name", header + "steps:\n" + step + "    create: |\n      apiVersion: v1\n      kind: Pod\n", `7:7: manifest: Pod without metadata.name`},
		{"manifest bad yaml", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: [Pod\n", `7:7: manifest: invalid YAML: did not find expected ',' or ']'`},
		{"manifest second document", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: Namespace\n      metadata: {name: a}\n      ---\n      apiVersion: v1\n      kind: Pod\n      metadata: {name: b, namespace: a}\n      spec: {nodeName: 3}\n", `14:14: manifest: spec.nodeName: expected string, got a number`},
		{"manifest namespace on cluster kind", header + "steps:\n" + step + "    apply: |\n      apiVersion: v1\n      kind: Node\n      metadata: {name: n, namespace: x}\n", `9:27: manifest: Node is not namespaced`},
		{"applyFile missing", header + "steps:\n" + step + "    applyFile: nope.yaml\n", `6:16: applyFile: testdata/nope.yaml: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Parse("testdata/t.yaml", []byte(tt.src))
			var fe *scenarios.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a *FileError", err)
			}
			if got, want := err.Error(), "testdata/t.yaml:"+tt.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestParseManifestInOtherFile(t *testing.T) {
	src := header + "steps:\n" + step + "    applyFile: bad-manifest.yaml\n"
	_, err := scenarios.Parse(filepath.Join("testdata", "t.yaml"), []byte(src))
	want := filepath.Join("testdata", "bad-manifest.yaml") + `:8:7: manifest: unknown field "spec.containers[0].imag"`
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
}

func TestLoadApplyFile(t *testing.T) {
	s, err := scenarios.Load(filepath.Join("testdata", "uses-file.yaml"))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	a, ok := s.Steps[0].Action.(*scenarios.ApplyAction)
	if !ok || len(a.Objects) != 1 {
		t.Fatalf("step 1 action = %#v, want an apply of one object", s.Steps[0].Action)
	}
	if got, want := a.String(), "apply -f nginx.yaml: Pod default/nginx"; got != want {
		t.Errorf("action = %q, want %q", got, want)
	}
}

func TestParseDefaults(t *testing.T) {
	s, err := scenarios.Parse("t.yaml", []byte(header+"steps:\n"+step+"    http: {path: /api}\n    expect:\n      - podStage: {pod: web, stage: status-persisted}\n"))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if s.Level != "beginner" || !s.Cluster.Scheduler || s.Cluster.Speed != 1 || len(s.Cluster.Nodes) != 3 || s.Cluster.Nodes[2].Name != "node-3" {
		t.Errorf("defaults: level %q, scheduler %v, speed %g, %d nodes", s.Level, s.Cluster.Scheduler, s.Cluster.Speed, len(s.Cluster.Nodes))
	}
	st := s.Steps[0]
	if st.As != "admin" || st.Timeout != scenarios.DefaultTimeout {
		t.Errorf("step defaults: as %q, timeout %s", st.As, st.Timeout)
	}
	h := st.Action.(*scenarios.HTTPAction)
	if h.Method != "GET" || h.Mode != "request" || h.Proto != "http2" || h.Count != 1 {
		t.Errorf("http defaults: %+v", h)
	}
	if e := st.Expect[0].(*scenarios.PodStageExpectation); e.Stage != 8 || e.Namespace != "default" {
		t.Errorf("podStage = %+v, want stage 8 in default", e)
	}
}

func TestLibrary(t *testing.T) {
	lib, err := scenarios.Library()
	if err != nil {
		t.Fatalf("Library: %v", err)
	}
	if len(lib) == 0 || lib[0].Name != scenarios.DefaultScenario {
		t.Fatalf("Library()[0] is not %s", scenarios.DefaultScenario)
	}
	for _, s := range lib {
		t.Run(s.Name, func(t *testing.T) {
			texts := map[string][2]string{"title": {s.Title.En, s.Title.Zh}, "summary": {s.Summary.En, s.Summary.Zh}}
			for _, st := range s.Steps {
				texts["narration of step "+st.Name()] = [2]string{st.Narration.En, st.Narration.Zh}
			}
			for what, t2 := range texts {
				if strings.TrimSpace(t2[0]) == "" || strings.TrimSpace(t2[1]) == "" {
					t.Errorf("%s: en %q, zh %q: want both", what, t2[0], t2[1])
				}
			}
			if _, err := scenarios.Find(s.Name); err != nil {
				t.Errorf("Find(%q): %v", s.Name, err)
			}
		})
	}
}

func TestFind(t *testing.T) {
	if _, err := scenarios.Find("no-such-scenario"); !errors.Is(err, scenarios.ErrNotFound) {
		t.Errorf("Find(no-such-scenario) = %v, want ErrNotFound", err)
	}
	s, err := scenarios.Find("testdata/uses-file.yaml")
	if err != nil || s.Name != "uses-file" {
		t.Errorf("Find(path) = %v, %v; want the scenario uses-file", s, err)
	}
}

// TestDocsExample checks that the complete example of docs/scenarios.md
// loads.
func TestDocsExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "scenarios.md"))
	if err != nil {
		t.Fatalf("read docs: %v", err)
	}
	_, rest, ok := strings.Cut(string(data), "## A complete example\n\n```yaml\n")
	example, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/scenarios.md: no example")
	}
	s, err := scenarios.Parse("docs-example.yaml", []byte(example))
	if err != nil {
		t.Fatalf("the docs' example: %v", err)
	}
	if len(s.Steps) != 5 {
		t.Errorf("the docs' example has %d steps, want 5", len(s.Steps))
	}
}
