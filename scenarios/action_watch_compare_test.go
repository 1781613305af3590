package scenarios

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseWatchCompare(t *testing.T) {
	lease := ObjectSpec{Kind: "Lease", Name: "ticker", Namespace: "default"}
	checkParse(t, parseWatchCompare, []parseCase[actionRunner]{
		{name: "defaults", key: "watchCompare", src: "{kind: Lease, name: ticker}",
			want: &WatchCompareAction{Object: lease, Changes: DefaultCompareChanges, Spacing: DefaultCompareSpacing, PollInterval: DefaultComparePollInterval}},
		{name: "every field", key: "watchCompare", src: "{kind: Lease, name: ticker, namespace: kube-system, changes: 3, spacing: 200ms, pollInterval: 1s}",
			want: &WatchCompareAction{Object: ObjectSpec{Kind: "Lease", Name: "ticker", Namespace: "kube-system"}, Changes: 3, Spacing: 200 * time.Millisecond, PollInterval: time.Second}},
		{name: "no name", key: "watchCompare", src: "{kind: Lease}", wantErr: `1:1: watchCompare: missing field "name"`},
		{name: "unknown kind", key: "watchCompare", src: "{kind: Gadget, name: x}", wantErr: `1:8: watchCompare.kind: unknown kind "Gadget" (known: ` + strings.Join(kindNames, ", ") + ")"},
		{name: "no changes", key: "watchCompare", src: "{kind: Lease, name: x, changes: 0}", wantErr: "1:33: watchCompare.changes: 0: use 1 to 100"},
		{name: "bad spacing", key: "watchCompare", src: "{kind: Lease, name: x, spacing: soon}", wantErr: `1:33: watchCompare.spacing: bad duration "soon" (use a number with a unit: 500ms, 2s, 1m)`},
		{name: "unknown field", key: "watchCompare", src: "{kind: Lease, name: x, proto: http2}", wantErr: `1:24: watchCompare: unknown field "proto" (allowed: kind, name, namespace, changes, spacing, pollInterval)`},
	})
}

// TestComparePaths: poll reads the object's path; the watches select
// the object by name in its collection, from a resourceVersion or not.
func TestComparePaths(t *testing.T) {
	p := &player{}
	for _, tc := range []struct {
		o                  ObjectSpec
		object, watchFrom9 string
	}{
		{ObjectSpec{Kind: "Lease", Name: "ticker", Namespace: "default"}, "/apis/coordination.k8s.io/v1/namespaces/default/leases/ticker",
			"/apis/coordination.k8s.io/v1/namespaces/default/leases?fieldSelector=metadata.name%3Dticker&resourceVersion=9&watch=1"},
		{ObjectSpec{Kind: "Namespace", Name: "team"}, "/api/v1/namespaces/team", "/api/v1/namespaces?fieldSelector=metadata.name%3Dteam&resourceVersion=9&watch=1"},
	} {
		cp := p.pathsOf(tc.o)
		if cp.object != tc.object || cp.watch("9") != tc.watchFrom9 || strings.Contains(cp.watch(""), "resourceVersion") {
			t.Errorf("%s: object %q, watch %q, %q; want %q, %q, none", tc.o, cp.object, cp.watch("9"), cp.watch(""), tc.object, tc.watchFrom9)
		}
	}
}

// compareTimeline makes changes at rv 10 (the state before), 11, 12, ...
// written at the given offsets (ms) from t0, and observations of
// (rv, ms) pairs.
func compareTimeline(t0 time.Time, writtenMs []int, seen [][2]int) ([]change, []observation) {
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	changes := []change{{rv: "10", at: t0}}
	for i, ms := range writtenMs {
		changes = append(changes, change{rv: strconv.Itoa(11 + i), at: at(ms)})
	}
	var obs []observation
	for _, s := range seen {
		obs = append(obs, observation{rv: strconv.Itoa(s[0]), at: at(s[1])})
	}
	return changes, obs
}

// TestScoreClient: a change is seen alone when the client had its own
// state, jumped over when its first state at least as new was a later
// change's; lateness runs from the write's answer to that state.
func TestScoreClient(t *testing.T) {
	t0 := time.Now()
	changes, obs := compareTimeline(t0, []int{100, 200, 300, 400},
		[][2]int{{10, 0}, {10, 50}, {12, 250}, {12, 260}, {13, 301}, {14, 900}})
	s, err := scoreClient(changes, obs)
	if err != nil {
		t.Fatal(err)
	}
	wantAlone := []bool{false, true, true, true}
	wantLate := []float64{150, 50, 1, 500}
	for i, c := range s.Seen {
		if c.Change != i+1 || c.Alone != wantAlone[i] || c.LateMs != wantLate[i] {
			t.Errorf("change %d: %+v, want alone %t, %vms late", i+1, c, wantAlone[i], wantLate[i])
		}
	}
	if s.SeenAlone != 3 || s.SeesEvery() || s.MedianLateMs != 100 || s.MaxLateMs != 500 || s.Seen[0].AsOf != "12" {
		t.Errorf("alone %d, sees every %t, median %v, max %v, change 1 as of %s; want 3, false, 100, 500, 12", s.SeenAlone, s.SeesEvery(), s.MedianLateMs, s.MaxLateMs, s.Seen[0].AsOf)
	}
	if _, err := scoreClient(compareTimeline(t0, []int{100}, [][2]int{{10, 0}, {99, 150}})); err == nil || !strings.Contains(err.Error(), "resourceVersion 99 is none of the writer's") {
		t.Errorf("a stranger's state: error %v", err)
	}
	if _, err := scoreClient(compareTimeline(t0, []int{100, 200}, [][2]int{{10, 0}, {11, 150}})); err == nil || !strings.Contains(err.Error(), "change 2 (resourceVersion 12) was never seen") {
		t.Errorf("a change not seen: error %v", err)
	}
}

// testEvidence is a scoreboard of three clients over three changes.
func testEvidence() *WatchCompareEvidence {
	seen := func(alone ...bool) []ChangeSeen {
		var out []ChangeSeen
		for i, a := range alone {
			out = append(out, ChangeSeen{Change: i + 1, Alone: a, LateMs: float64(i) - 0.5})
		}
		return out
	}
	return &WatchCompareEvidence{Object: "Lease default/ticker",
		Changes: []CompareChange{{1, "11", 700}, {2, "12", 1400}, {3, "13", 2100}},
		Clients: []ClientScore{
			{Client: ClientPoll, Requests: 4, Connections: 1, HTTPBytesIn: 2897, HTTPBytesOut: 628, TLSBytesIn: 4998, TLSBytesOut: 2843, UnchangedAnswers: 1, Seen: seen(false, true, false), SeenAlone: 1, MedianLateMs: 1234, MaxLateMs: 1850},
			{Client: ClientLongPoll, Requests: 4, Connections: 3, HTTPBytesIn: 5354, HTTPBytesOut: 1441, TLSBytesIn: 17722, TLSBytesOut: 14361, RoundWaitsMs: []float64{700, 701, 702}, Seen: seen(true, true, true), SeenAlone: 3, MedianLateMs: 0.4, MaxLateMs: 5.8},
			{Client: ClientWatch, Requests: 1, Connections: 1, HTTPBytesIn: 4206, HTTPBytesOut: 195, TLSBytesIn: 6397, TLSBytesOut: 2345, Seen: seen(true, true, true), SeenAlone: 3, MedianLateMs: -0.2, MaxLateMs: 1.5},
		}}
}

// TestScoreboardTranscript: the scoreboard's rows line up under its
// heading in both languages, within 78 columns, and say what the
// evidence says.
func TestScoreboardTranscript(t *testing.T) {
	var res StepResult
	writeBoardTable(&res, testEvidence())
	for _, s := range testEvidence().Clients {
		writeClientFindings(&res, s)
	}
	writeTLSTotals(&res, testEvidence())
	checkLabWidth(t, res)
	for _, lang := range []string{"en", "zh"} {
		lines := transcriptIn(res, lang)
		head := columnsOf(lines[0])
		for _, row := range lines[1:4] {
			if columnsOf(row) != head {
				t.Errorf("%s: row %q is %d columns, the heading %d", lang, row, columnsOf(row), head)
			}
		}
	}
	en := strings.Join(res.HTTP, "\n")
	for _, want := range []string{
		"poll              4      1      2,897        628        1/3    1.23s    1.85s",
		"long-poll         4      3      5,354      1,441        3/3    0.4ms    5.8ms",
		"watch             1      1      4,206        195        3/3   -0.2ms    1.5ms",
		"(below 0: the client had it before the writer had its answer)",
		"poll: jumped over changes 1, 3: it only ever had a later state",
		"   1 of its 4 answers were unchanged",
		"long-poll: had every change as a state of its own",
		"   its rounds, from request to event: 700ms, 701ms, 702ms",
		"   long-poll  17,722 / 14,361",
	} {
		if !strings.Contains(en, want) {
			t.Errorf("transcript lacks %q:\n%s", want, en)
		}
	}
	if zh := strings.Join(transcriptIn(res, "zh"), "\n"); !strings.Contains(zh, "轮询：跳过了第 1、3 次修改") || !strings.Contains(zh, "它的 4 个响应里有 1 个没有变化") {
		t.Errorf("Chinese transcript:\n%s", zh)
	}
}

// TestWatchCompareEvidenceJSON: the evidence keeps its figures under
// the json names docs and --json readers use.
func TestWatchCompareEvidenceJSON(t *testing.T) {
	b, err := json.Marshal(testEvidence())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"object":"Lease default/ticker"`, `"resourceVersion":"11"`, `"writtenMs":700`, `"client":"longpoll"`, `"requests":4`,
		`"connections":3`, `"httpBytesIn":5354`, `"tlsBytesOut":14361`, `"unchangedAnswers":1`, `"roundWaitsMs":[700,701,702]`, `"seenAlone":3`, `"alone":false`, `"lateMs":-0.5`, `"medianLateMs":-0.2`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s:\n%s", want, b)
		}
	}
}

func TestFormatMs(t *testing.T) {
	for ms, want := range map[float64]string{0.44: "0.4ms", -0.2: "-0.2ms", 9.96: "10.0ms", 12.4: "12ms", 999: "999ms", 1234: "1.23s", -1500: "-1.50s"} {
		if got := formatMs(ms); got != want {
			t.Errorf("formatMs(%v) = %q, want %q", ms, got, want)
		}
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4321: "-4,321"} {
		if got := groupDigits(n); got != want {
			t.Errorf("groupDigits(%d) = %q, want %q", n, got, want)
		}
	}
}
