package recording

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// calls is an observer that keeps every call, in order.
type calls struct{ got []any }

func (c *calls) StepStarted(s scenarios.StepInfo)                          { c.got = append(c.got, s) }
func (c *calls) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) { c.got = append(c.got, r) }
func (c *calls) Event(ev flow.Event)                                       { c.got = append(c.got, ev) }

// fakeClock returns a clock that starts at start and moves by step at
// each reading.
func fakeClock(start time.Time, step time.Duration) func() time.Time {
	now := start
	return func() time.Time {
		t := now
		now = now.Add(step)
		return t
	}
}

// sampleRun plays a made-up run of two steps to o.
func sampleRun(o interface {
	scenarios.Observer
	scenarios.EventObserver
}, t0 time.Time) {
	q := &scenarios.Question{Ask: flow.Text{En: "Which code?", Zh: "哪个状态码？"}, Fact: "status", About: flow.Text{En: "status", Zh: "状态码"},
		Choices: []scenarios.Choice{{Text: flow.Text{En: "200", Zh: "200"}, Value: "200"}, {Text: flow.Text{En: "201", Zh: "201"}, Value: "201"}}}
	s1 := scenarios.StepInfo{Index: 1, Total: 2, ID: "create", Narration: flow.Text{En: "We create a pod.", Zh: "我们创建一个 Pod。"}, Action: "apply Pod default/nginx", Question: q}
	o.StepStarted(s1)
	o.Event(flow.Event{Seq: 7, Stage: flow.StageAdmitted, Component: "apiserver", Time: t0.Add(1500 * time.Microsecond),
		Object:  flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: "nginx", UID: "u1"},
		Request: &flow.RequestTrace{Method: "POST", URI: "/api/v1/namespaces/default/pods", Code: 201, Duration: 3 * time.Millisecond}})
	o.Event(flow.Event{Seq: 8, Component: "gate", Time: t0.Add(2 * time.Millisecond), Hold: &flow.Hold{Boundary: flow.Boundary{Point: flow.PointBeforePersist}}})
	o.StepFinished(s1, scenarios.StepResult{Status: 201, Answer: 1, FactValue: "201", Transcript: []flow.Text{{En: "a <b>", Zh: "甲 <b>"}},
		Evidence: map[string]any{"answers": []string{"<html>"}}})
	s2 := scenarios.StepInfo{Index: 2, Total: 2, Narration: flow.Text{En: "It fails.", Zh: "失败了。"}}
	o.StepStarted(s2)
	o.StepFinished(s2, scenarios.StepResult{Answer: -1, Err: errors.New("step 2: expected x, saw y")})
}

// TestRoundTrip: what Feed hands on is what the run's outputs got, call
// for call (evidence as the JSON it was, the error as its message, each
// event's time), and Feed returns the run's error.
func TestRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 12, 4, 21, 0, 0, 123456789, time.UTC)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Scenario: ScenarioInfo{Name: "x", Steps: 2}, Lang: "en", Output: "plain"}, fakeClock(t0, time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	var live calls
	sampleRun(w.Observe(&live), t0)
	if err := w.End(errors.New("step 2: expected x, saw y")); err != nil {
		t.Fatal(err)
	}
	rec, err := Read("run.jsonl", &buf)
	if err != nil {
		t.Fatalf("Read: %v\n%s", err, buf.String())
	}
	if !rec.Header.Started.Equal(t0) || rec.Header.Version != Version {
		t.Errorf("header: started %v version %d, want %v and %d", rec.Header.Started, rec.Header.Version, t0, Version)
	}
	var replayed calls
	err = rec.Feed(context.Background(), &replayed, FeedOptions{Holds: true})
	if err == nil || err.Error() != "step 2: expected x, saw y" {
		t.Errorf("Feed returned %v, want the run's error", err)
	}
	if len(replayed.got) != len(live.got) {
		t.Fatalf("%d calls replayed, want %d", len(replayed.got), len(live.got))
	}
	for i := range live.got {
		want, got := live.got[i], replayed.got[i]
		if r, ok := want.(scenarios.StepResult); ok {
			g := got.(scenarios.StepResult)
			if r.Evidence != nil && string(g.Evidence.(json.RawMessage)) != `{"answers":["<html>"]}` {
				t.Errorf("call %d: evidence %s", i, g.Evidence)
			}
			if (r.Err == nil) != (g.Err == nil) || (r.Err != nil && r.Err.Error() != g.Err.Error()) {
				t.Errorf("call %d: error %v, want %v", i, g.Err, r.Err)
			}
			r.Evidence, g.Evidence, r.Err, g.Err = nil, nil, nil, nil
			want, got = r, g
		}
		if ev, ok := want.(flow.Event); ok {
			g := got.(flow.Event)
			if !g.Time.Equal(ev.Time) {
				t.Errorf("call %d: event time %v, want %v", i, g.Time, ev.Time)
			}
			ev.Time, g.Time = time.Time{}, time.Time{}
			want, got = ev, g
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("call %d:\n got %#v\nwant %#v", i, got, want)
		}
	}
}

// TestFeedLeavesOutHolds: a replay with a gate of its own gets no
// recorded holds.
func TestFeedLeavesOutHolds(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, Header{Scenario: ScenarioInfo{Name: "x"}, Lang: "en", Output: "tui"}, nil)
	sampleRun(w.Observe(nil), time.Now())
	_ = w.End(nil)
	rec, err := Read("f", &buf)
	if err != nil {
		t.Fatal(err)
	}
	var c calls
	_ = rec.Feed(context.Background(), &c, FeedOptions{})
	for _, x := range c.got {
		if ev, ok := x.(flow.Event); ok && ev.Hold != nil {
			t.Errorf("a recorded hold was handed on: %+v", ev)
		}
	}
	if len(c.got) != 5 {
		t.Errorf("%d calls, want 5 (4 steps' calls and one event)", len(c.got))
	}
}

const goodHeader = `{"kubesim":"session-recording","version":1,"started":"2026-12-04T21:00:00Z","scenario":{"name":"x","title":{"en":"","zh":""},"summary":{"en":"","zh":""},"steps":1},"lang":"en","output":"plain","speed":0}`

// TestReadRefuses: a file that is not a whole recording of this version
// is refused with where it is wrong.
func TestReadRefuses(t *testing.T) {
	step := `{"kind":"step","at":5,"step":{"index":1,"total":1,"narration":{"en":"a","zh":"甲"}}}`
	end := `{"kind":"end","at":9}`
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", "", "f:1: empty file: not a kubesim session recording"},
		{"not a recording", `{"version":1}` + "\n", `f:1:1: not a kubesim session recording: its first line has no "kubesim": "session-recording"`},
		{"asciicast", `{"version": 2, "width": 80, "height": 24}` + "\n", `f:1:1: not a kubesim session recording`},
		{"unknown version", strings.Replace(goodHeader, `"version":1`, `"version":2`, 1) + "\n" + end + "\n",
			"f:1:32: recording format version 2 is not one this kubesim reads (it reads version 1): replay it with the kubesim that made it, or a newer one"},
		{"no version", `{"kubesim":"session-recording"}` + "\n", "f:1:1: the header has no version"},
		{"bad lang", strings.Replace(goodHeader, `"lang":"en"`, `"lang":"fr"`, 1) + "\n" + end + "\n", `f:1:165: lang must be en or zh, got "fr"`},
		{"malformed entry", goodHeader + "\n" + step + "\n" + `{"kind":"event","at":6,"event":{"stage":x}}` + "\n" + end + "\n",
			"f:3:41: malformed JSON: invalid character 'x' looking for beginning of value"},
		{"wrong type", goodHeader + "\n" + `{"kind":"step","at":"soon"}` + "\n" + end + "\n", "f:2:"},
		{"cut in a line", goodHeader + "\n" + step + "\n" + `{"kind":"event","at":6,"event":{"sta`, "f:3:37: malformed JSON: unexpected end of JSON input"},
		{"cut between lines", goodHeader + "\n" + step + "\n",
			"f:2: the recording ends at line 2 without its end entry: it was cut short (the run killed, or the file truncated)"},
		{"unknown kind", goodHeader + "\n" + `{"kind":"stage","at":1}` + "\n" + end + "\n", `f:2:2: unknown entry kind "stage" (step, result, event or end)`},
		{"result without result", goodHeader + "\n" + `{"kind":"result","at":1,"step":{"index":1}}` + "\n" + end + "\n", `f:2:2: a result entry without its "result"`},
		{"after the end", goodHeader + "\n" + end + "\n" + step + "\n", "f:3:1: a line after the end entry"},
		{"column in characters", goodHeader + "\n" + `{"kind":"step","at":1,"step":{"index":1,"narration":{"zh":"阶段一"}},}` + "\n" + end + "\n",
			"f:2:67: malformed JSON: invalid character '}' looking for beginning of object key string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read("f", strings.NewReader(tc.file))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("Read: %v\nwant an error starting %q", err, tc.want)
			}
			var re *Error
			if !errors.As(err, &re) || re.File != "f" || re.Line == 0 {
				t.Errorf("the error is not an *Error naming the file and line: %#v", err)
			}
		})
	}
}
