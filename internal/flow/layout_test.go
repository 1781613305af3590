package flow

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// texts returns the lines as a plain output writes them.
func texts(ls []Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func sameLines(t *testing.T, what string, got []Line, want []string) {
	t.Helper()
	g := texts(got)
	if strings.Join(g, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\ngot\n%s\nwant\n%s", what, strings.Join(g, "\n"), strings.Join(want, "\n"))
	}
}

var (
	testTrace = &RequestTrace{Method: "POST", URI: "/api/v1/namespaces/default/pods", Proto: "HTTP/2.0", User: "admin",
		Groups: []string{"system:masters", "system:authenticated"}, Route: "POST /api/v1/namespaces/{namespace}/pods",
		Code: 201, BytesSent: 1187, Duration: 3456 * time.Microsecond,
		Steps: []Step{{Name: "received", Outcome: "ok", Detail: "POST over HTTP/2.0"}, {Name: "authorized", At: 63 * time.Microsecond, Outcome: "allowed"}}}
	pod1 = `{"metadata":{"name":"web","resourceVersion":"7"},"spec":{}}`
	pod2 = `{"metadata":{"name":"web","resourceVersion":"9"},"spec":{"nodeName":"node-2"}}`
)

func TestLayoutBrief(t *testing.T) {
	update := &EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 9, PrevRevision: 7, Value: pod2}
	tests := []struct {
		name string
		lang string
		ev   Event
		c    Context
		want []string
	}{
		{"request", "en", Event{Component: "apiserver", Request: testTrace}, Context{}, []string{
			"POST /api/v1/namespaces/default/pods  HTTP/2.0  (apiserver)",
			"user   admin [system:masters, system:authenticated]",
			"route  POST /api/v1/namespaces/{namespace}/pods",
			"        +0s  received      ok        POST over HTTP/2.0",
			"      +63µs  authorized    allowed   ",
			"→ 201, 1187 bytes in 3.5ms"}},
		{"request zh", "zh", Event{Component: "apiserver", Request: testTrace}, Context{}, []string{
			"POST /api/v1/namespaces/default/pods  HTTP/2.0  (apiserver)",
			"用户   admin [system:masters, system:authenticated]",
			"路由   POST /api/v1/namespaces/{namespace}/pods",
			"        +0s  收到          成功      POST over HTTP/2.0",
			"      +63µs  鉴权          允许      ",
			"→ 201，1187 字节，用时 3.5ms"}},
		{"create", "en", Event{Etcd: &EtcdWrite{Op: "create", Key: "/registry/pods/default/web", Revision: 7, Value: pod1}}, Context{}, []string{
			"etcd create /registry/pods/default/web",
			`revision 7 = resourceVersion "7"`,
			"value 59 bytes: " + pod1}},
		{"update, previous known", "en", Event{Etcd: update}, Context{Prior: Prior{Value: pod1, Known: true}}, []string{
			"etcd update /registry/pods/default/web",
			`revision 9 (previous revision 7) = resourceVersion "9"`,
			"value 78 bytes: " + pod2,
			"changed since revision 7:",
			`  + spec.nodeName: "node-2"`}},
		{"update, previous unknown", "zh", Event{Etcd: update}, Context{}, []string{
			"etcd update /registry/pods/default/web",
			`revision 9（上一个 revision 7）= resourceVersion "9"`,
			"值 78 字节：" + pod2}},
		{"watch", "en", Event{Watch: &WatchDelivery{User: "system:kube-scheduler", URI: "/api/v1/pods?watch=true", Proto: "HTTP/2.0",
			ContentType: "application/json", Type: "ADDED", ResourceVersion: "7", Frame: []byte("{}\n")}}, Context{}, []string{
			"watch event ADDED, resourceVersion 7",
			"to system:kube-scheduler on GET /api/v1/pods?watch=true (HTTP/2.0, application/json)",
			"frame 3 bytes: {}",
			"on the wire: these 3 bytes in DATA frames of the watch's HTTP/2 stream; each DATA frame has a 9-byte header (length, type, flags, stream id) that the HTTP/2 layer adds, which the API server does not see"}},
		{"runtime", "en", Event{Component: "kubelet/node-1", Runtime: &RuntimeAction{Action: "pull", Container: "web", Image: "nginx:1.27", Duration: 800 * time.Millisecond, Result: "ok"}}, Context{},
			[]string{"runtime pull   web (nginx:1.27)  800ms  ok  [kubelet/node-1]"}},
		{"status", "en", Event{Status: &StatusReport{User: "system:node:node-1", Patch: "{\n  \"status\": {}\n}", Phase: "Running"}}, Context{}, []string{
			"PATCH pods/status as system:node:node-1: phase Running",
			`patch 18 bytes: { "status": {} }`}},
		{"no evidence", "en", Event{Component: "gate", Summary: "held"}, Context{}, []string{"held  (gate)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameLines(t, tc.name, Layout{Lang: tc.lang}.Event(tc.ev, tc.c), tc.want)
		})
	}
}

func TestLayoutScheduling(t *testing.T) {
	lone := &SchedulingDecision{Attempt: 1, Chosen: "node-1", Nodes: []NodeVerdict{
		{Node: "node-2", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu"}},
		{Node: "node-1", Feasible: true},
	}}
	scored := &SchedulingDecision{Attempt: 2, Chosen: "b", Nodes: []NodeVerdict{
		{Node: "a", Feasible: true, Total: 70, Scores: []PluginScore{{Plugin: "NodeResourcesFit", Score: 70, Weight: 1}}},
		{Node: "b", Feasible: true, Total: 90, Scores: []PluginScore{{Plugin: "NodeResourcesFit", Score: 90, Weight: 1}}},
	}}
	none := &SchedulingDecision{Attempt: 3, Message: "0/1 nodes are available: 1 Insufficient cpu.", Nodes: []NodeVerdict{
		{Node: "a", FailedPlugin: "NodeResourcesFit", Reasons: []string{"Insufficient cpu", "Insufficient memory"}}}}
	tests := []struct {
		name string
		l    Layout
		d    *SchedulingDecision
		want []string
	}{
		{"brief, lone feasible node not scored", Layout{}, lone, []string{
			"scheduling attempt 1: 2 nodes",
			"* node-1       fits; the only node that does, so scoring is skipped",
			"  node-2       filtered out by NodeResourcesFit: Insufficient cpu",
			"chosen: node-1"}},
		{"brief, scored", Layout{}, scored, []string{
			"scheduling attempt 2: 2 nodes",
			"  a            fits; total 70 = NodeResourcesFit 70×1",
			"* b            fits; total 90 = NodeResourcesFit 90×1",
			"chosen: b"}},
		{"brief, no node fits, one node", Layout{}, none, []string{
			"scheduling attempt 3: 1 node",
			"  a            filtered out by NodeResourcesFit: Insufficient cpu; Insufficient memory",
			"no node fits: 0/1 nodes are available: 1 Insufficient cpu."}},
		{"full", Layout{Form: Full}, scored, []string{
			"attempt 2 → b",
			"  NODE  FILTER   SCORE",
			"  a     ✓ fit    70",
			"       NodeResourcesFit  70 ×1",
			"★ b     ✓ fit    90",
			"       NodeResourcesFit  90 ×1"}},
		{"full zh: the columns stay aligned", Layout{Form: Full, Lang: "zh"}, none, []string{
			"第 3 次尝试：没有合适的节点",
			"0/1 nodes are available: 1 Insufficient cpu.",
			"  节点  过滤     得分",
			"  a     ✗ NodeResourcesFit: Insufficient cpu, Insufficient memory"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameLines(t, tc.name, tc.l.Event(Event{Scheduling: tc.d}, Context{}), tc.want)
		})
	}
}

func TestLayoutFullRequest(t *testing.T) {
	inFlight := &RequestTrace{Method: "GET", URI: "/api/v1/nodes", Proto: "HTTP/1.1",
		Steps: []Step{{Name: "authorized", Outcome: "denied", Detail: "no rule"}}}
	tests := []struct {
		name  string
		r     *RequestTrace
		want  []string
		roles []Role
	}{
		{"done", testTrace, []string{
			"POST /api/v1/namespaces/default/pods  HTTP/2.0",
			"user admin  groups system:masters,system:authenticated",
			"route POST /api/v1/namespaces/{namespace}/pods",
			"→ 201, 1187 bytes in 3.5ms",
			"1 +0s      received      ok",
			"    POST over HTTP/2.0",
			"2 +63µs    authorized    allowed"},
			[]Role{RoleHeading, RoleField, RoleField, RoleOK, RoleField, RoleNote, RoleField}},
		{"in progress, a step denied", inFlight, []string{
			"GET /api/v1/nodes  HTTP/1.1",
			"user (unauthenticated)  groups ",
			"… in progress (the trace so far)",
			"1 +0s      authorized    denied",
			"    no rule"},
			[]Role{RoleHeading, RoleField, RoleWarning, RoleFailed, RoleNote}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Layout{Form: Full}.Event(Event{Request: tc.r}, Context{})
			sameLines(t, tc.name, got, tc.want)
			for i, l := range got {
				if i < len(tc.roles) && l.Role != tc.roles[i] {
					t.Errorf("line %d %q: role %d, want %d", i, l.Text, l.Role, tc.roles[i])
				}
			}
		})
	}
}

func TestLayoutFullEtcd(t *testing.T) {
	w := &EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 9, PrevRevision: 7, Value: pod2}
	head := []string{"update /registry/pods/default/web", "revision 9  (previous 7)  78 bytes"}
	diff := []string{"diff against revision 7 (etcd MVCC history)",
		" …", `     "name": "web",`, `-    "resourceVersion": "7"`, `+    "resourceVersion": "9"`, "   },", `-  "spec": {}`, `+  "spec": {`, `+    "nodeName": "node-2"`, "+  }", " }"}
	compacted := errors.New("required revision has been compacted")
	tests := []struct {
		name string
		p    Prior
		want []string
	}{
		{"history being read", Prior{Pending: true}, append(head, "reading revision 7 from etcd…")},
		{"history read", Prior{Value: pod1, Known: true}, append(head, diff...)},
		{"compacted, no recorded write", Prior{Err: compacted}, append(head, "history unavailable: required revision has been compacted")},
		{"compacted, the recorded write", Prior{Err: compacted, Value: pod1, Known: true},
			append(append(head, "history unavailable: required revision has been compacted"), diff...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sameLines(t, tc.name, Layout{Form: Full}.Event(Event{Etcd: w}, Context{Prior: tc.p}), tc.want)
		})
	}
	created := Layout{Form: Full}.Event(Event{Etcd: &EtcdWrite{Op: "create", Key: "k", Revision: 7, Value: `{"a":1}`}}, Context{})
	sameLines(t, "create", created, []string{"create k", "revision 7  7 bytes", "created: the whole value is new", "+{", `+  "a": 1`, "+}"})
	if l := created[3]; l.Role != RoleAdded || l.Mark != "+" || l.Fit != FitAnywhere {
		t.Errorf("an added line is %+v, want role Added, mark +, cut anywhere", l)
	}
}

func TestLayoutFullWatch(t *testing.T) {
	chunk := &WatchDelivery{User: "system:kube-scheduler", URI: "/api/v1/pods?watch=true", Proto: "HTTP/1.1",
		ContentType: "application/json;stream=watch", Type: "ADDED", ResourceVersion: "7", Frame: []byte(`{"type":"ADDED"}` + "\n")}
	sameLines(t, "chunked JSON", Layout{Form: Full, Width: 100}.Event(Event{Watch: chunk}, Context{}), []string{
		"ADDED  resourceVersion 7  → system:kube-scheduler",
		"GET /api/v1/pods?watch=true  HTTP/1.1",
		"application/json;stream=watch  frame 17 bytes",
		"on the wire: one HTTP/1.1 chunk (size in hex, CRLF, bytes, CRLF)",
		`11\r\n`,
		`{"type":"ADDED"}\n`,
		`\r\n`})
	proto := *chunk
	proto.Proto, proto.Frame = "HTTP/2.0", []byte("k8s\x00\x0a\x05ADDED\x12\x01x\x00\x01\x02\x03\x04\x05\x06")
	for _, tc := range []struct {
		width int
		rows  []string
	}{
		{100, []string{"0000  6b 38 73 00 0a 05 41 44 44 45 44 12 01 78 00 01  k8s...ADDED..x..", "0010  02 03 04 05 06                                   ....."}},
		{60, []string{"0000  6b 38 73 00 0a 05 41 44  k8s...AD", "0008  44 45 44 12 01 78 00 01  DED..x..", "0010  02 03 04 05 06           ....."}},
	} {
		got := Layout{Form: Full, Width: tc.width}.Event(Event{Watch: &proto}, Context{})
		want := append([]string{"ADDED  resourceVersion 7  → system:kube-scheduler", "GET /api/v1/pods?watch=true  HTTP/2.0",
			"application/json;stream=watch  frame 21 bytes", "on the wire: 21 bytes in HTTP/2 DATA frames of the watch's stream"}, tc.rows...)
		sameLines(t, fmt.Sprintf("protobuf at width %d", tc.width), got, want)
		if l := got[len(got)-1]; l.Fit != FitNone {
			t.Errorf("a hex dump row may be broken (%v)", l.Fit)
		}
	}
}

func TestLayoutFullKubelet(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	// recorded when it ends: 800ms after it began, 1s after t0
	pull := Event{Component: "kubelet/node-2", Time: t0.Add(1800 * time.Millisecond),
		Runtime: &RuntimeAction{Action: "pull", Container: "web", Image: "nginx:1.27", Duration: 800 * time.Millisecond, Result: "ErrImagePull"}}
	got := Layout{Form: Full}.Event(pull, Context{Since: t0})
	sameLines(t, "runtime", got, []string{"+1s      kubelet/node-2 pull    800ms  ErrImagePull  web nginx:1.27"})
	if got[0].Role != RoleFailed {
		t.Errorf("a failed action's role is %d, want RoleFailed", got[0].Role)
	}
	status := Event{Object: ObjectRef{Name: "web"}, Status: &StatusReport{User: "system:node:node-2", Patch: `{"status":{"phase":"Running"}}`, Phase: "Running"}}
	sameLines(t, "status zh", Layout{Form: Full, Lang: "zh"}.Event(status, Context{}), []string{
		"PATCH pods/web/status  身份 system:node:node-2  → phase Running",
		"{\n  \"status\": {\n    \"phase\": \"Running\"\n  }\n}"})
}

func TestRequestSummaryAndRevision(t *testing.T) {
	r := &RequestTrace{Method: "GET", URI: "/api/v1/nodes", Code: 403, Duration: 2 * time.Millisecond,
		Steps: []Step{{Name: "authorized", Outcome: "denied", Detail: "no rule"}}}
	sameLines(t, "summary", Layout{}.RequestSummary(r, false), []string{"GET /api/v1/nodes → 403  (as (unauthenticated), no route, 2ms)"})
	sameLines(t, "summary with steps, zh", Layout{Lang: "zh"}.RequestSummary(r, true), []string{
		"GET /api/v1/nodes → 403  (身份 （未认证）, 未匹配路由, 2ms)",
		"        +0s  鉴权          拒绝      no rule"})
	w := &EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 9, PrevRevision: 7, Value: pod2}
	sameLines(t, "revision", Layout{}.Revision(w, Prior{Value: pod1, Known: true}), []string{
		"etcd update /registry/pods/default/web, revision 9 (previous 7)", "changed since revision 7:", `  + spec.nodeName: "node-2"`})
	sameLines(t, "revision, previous unknown", Layout{}.Revision(w, Prior{}), []string{"etcd update /registry/pods/default/web, revision 9 (previous 7)"})
}

// TestChangesOrderAndBound: the fields that tell a pod's story come
// first; resourceVersion and managedFields are left out; past
// maxChanges the rest are counted.
func TestChangesOrderAndBound(t *testing.T) {
	var a, b []string
	for i := range maxChanges + 3 {
		a = append(a, fmt.Sprintf(`"f%02d":0`, i))
		b = append(b, fmt.Sprintf(`"f%02d":1`, i))
	}
	old := `{"metadata":{"resourceVersion":"7","managedFields":[]},"status":{` + strings.Join(a, ",") + `,"phase":"Pending"}}`
	now := `{"metadata":{"resourceVersion":"9","managedFields":[{}]},"status":{` + strings.Join(b, ",") + `,"phase":"Running"}}`
	got := texts(Layout{}.changes(&EtcdWrite{Revision: 9, PrevRevision: 7, Value: now}, Prior{Value: old, Known: true}))
	if len(got) != maxChanges+2 {
		t.Fatalf("%d lines, want a heading, %d changes and the count:\n%s", len(got), maxChanges, strings.Join(got, "\n"))
	}
	if want := `  ~ status.phase: "Pending" → "Running"`; got[1] != want {
		t.Errorf("first change %q, want %q", got[1], want)
	}
	if want := "  … and 4 more"; got[len(got)-1] != want {
		t.Errorf("last line %q, want %q", got[len(got)-1], want)
	}
	for _, l := range got {
		if strings.Contains(l, "resourceVersion") || strings.Contains(l, "managedFields") {
			t.Errorf("listed %q", l)
		}
	}
}

// TestLayoutPrintable: whatever the cluster put in an event, no line of
// any layout carries a terminal control sequence.
func TestLayoutPrintable(t *testing.T) {
	const evil = "x\x1b]0;pwned\x07\x1b[2J\u009b2J\r"
	evs := []Event{
		{Component: evil, Request: &RequestTrace{Method: "GET", URI: "/api/" + evil, User: evil, Groups: []string{evil}, Route: evil, Code: 200,
			Steps: []Step{{Name: evil, Outcome: evil, Detail: evil}}}},
		{Etcd: &EtcdWrite{Op: "create", Key: evil, Revision: 1, Value: `{"a":"` + evil + `"}`}},
		{Watch: &WatchDelivery{User: evil, URI: evil, Proto: "HTTP/1.1", ContentType: evil, Type: evil, Frame: []byte(`{"m":"` + "\u009b2J" + `"}`)}},
		{Scheduling: &SchedulingDecision{Attempt: 1, Message: evil, Nodes: []NodeVerdict{{Node: evil, FailedPlugin: evil, Reasons: []string{evil}}}}},
		{Component: evil, Runtime: &RuntimeAction{Action: evil, Container: evil, Image: evil, Result: evil}},
		{Object: ObjectRef{Name: evil}, Status: &StatusReport{User: evil, Patch: evil, Phase: evil}},
		{Component: evil, Summary: evil},
	}
	control := regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f]")
	for _, form := range []Form{Brief, Full} {
		for _, ev := range evs {
			for _, l := range (Layout{Form: form, Width: 80}).Event(ev, Context{}) {
				if control.MatchString(l.Text) || control.MatchString(l.Mark) {
					t.Errorf("form %d: line %q has a control character", form, l.Text)
				}
			}
		}
	}
	for _, l := range (Layout{}).RequestSummary(evs[0].Request, true) {
		if control.MatchString(l.Text) {
			t.Errorf("summary line %q has a control character", l.Text)
		}
	}
}

// TestEvidenceWordsBothLanguages: every word has both languages, and a
// format takes the same arguments in both.
func TestEvidenceWordsBothLanguages(t *testing.T) {
	verbs := regexp.MustCompile(`%[-+# 0-9*]*[a-zA-Z]`)
	for _, table := range []map[string]Text{evidenceWords, stepNames, outcomes} {
		for k, w := range table {
			if w.En == "" || w.Zh == "" {
				t.Errorf("%q: %+v lacks a language", k, w)
			}
			if en, zh := verbs.FindAllString(w.En, -1), verbs.FindAllString(w.Zh, -1); strings.Join(en, " ") != strings.Join(zh, " ") {
				t.Errorf("%q: formats %v in English, %v in Chinese", k, en, zh)
			}
		}
	}
}

func TestFormatDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"}, {0, "0s"}, {1234 * time.Nanosecond, "1µs"}, {263400 * time.Nanosecond, "263µs"},
		{3456789 * time.Nanosecond, "3.5ms"}, {1205 * time.Millisecond, "1.2s"}, {59940 * time.Millisecond, "59.9s"},
		{61600 * time.Millisecond, "1m2s"},
	} {
		if got := FormatDuration(tc.d); got != tc.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestShortening(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Truncate("abcdef", 4), "abcd…"},
		{Truncate("abc", 4), "abc"},
		{Truncate("节点节点", 4), "节…"}, // never inside a rune
		{Preview([]byte("a\r\nb\n")), `a\r\nb`},
		{Preview([]byte{0, 1, 2}), "(binary) 00 01 02"},
		{Preview(append(make([]byte, 41), 'x')), "(binary) " + strings.TrimSpace(strings.Repeat("00 ", 40)) + " …"},
		{Pad("节点", 6) + "|", "节点  |"},
		{Pad("NODE", 6) + "|", "NODE  |"},
		{Pad("toolong", 3), "toolong"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
