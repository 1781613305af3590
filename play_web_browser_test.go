package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/tui"
	"github.com/kubesim/kubesim/web"
)

// TestWebViewInBrowser plays pod-create in step mode on a real cluster
// behind the web view and watches it in Chromium: the teacher's page
// and two read-only pages (each in a browser context of its own, as two
// students). The viewers answer the first question, each a different
// choice, and the teacher's tally counts them; a viewer has no controls
// and the server refuses its POST /api/control. The teacher steps the
// lesson with #next; the first pod's eight stages arrive in order, the
// stage-4 arrow's evidence is the run's own scoring table, and every page
// draws the same arrows.
func TestWebViewInBrowser(t *testing.T) {
	browser := newBrowser(t) // first: skips before booting a cluster
	sess, srv := startWebLesson(t, "pod-create")

	teacher := browser
	v1, v2 := newTab(t, browser, true), newTab(t, browser, true)
	pages := []webPage{{"teacher", teacher, srv.TeacherURL()}, {"viewer 1", v1, srv.URL()}, {"viewer 2", v2, srv.URL()}}
	for _, p := range pages {
		browserDo(t, p.tab, "opening "+p.name+"'s page", chromedp.Navigate(p.url))
	}
	for _, p := range pages {
		role := "viewer"
		if p.name == "teacher" {
			role = "teacher"
		}
		waitText(t, p.tab, "#role", role)
	}

	checkControlsRefused(t, teacher, v1, v2)
	answerFirstQuestion(t, teacher, v1, v2)

	firsts := driveUntilStage(t, teacher, sess, 8)
	t.Logf("the first arrow of each stage 1..8: %v", firsts[1:])
	for s := 2; s <= 8; s++ {
		if firsts[s] <= firsts[s-1] {
			t.Errorf("the first arrow of stage %d is #%d, not after stage %d's first (#%d); firsts: %v", s, firsts[s], s-1, firsts[s-1], firsts)
		}
	}
	waitDOM(t, teacher, "every stage marked done", `(() => {
		const done = [1,2,3,4,5,6,7,8].filter(s => document.querySelector('#stages li[data-stage="'+s+'"]')?.classList.contains("done"));
		return {ok: done.length === 8, state: "done: " + done.join(",")};
	})()`)

	checkScheduleEvidence(t, teacher, sess)
	checkSameArrows(t, pages)

	driveUntil(t, teacher, sess, "the lesson ends", `(() => {
		const s = document.querySelector("#status")?.textContent || "";
		return {ok: s.includes("ended"), state: "status " + s};
	})()`)
	select {
	case <-sess.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("the page says the lesson ended, but the session is not done after %v", waitTimeout)
	}
	if err := sess.Err(); err != nil {
		t.Errorf("pod-create failed behind the web view: %v", err)
	}
	for _, p := range pages[1:] {
		waitText(t, p.tab, "#status", "ended")
	}
}

// webPage is one tab of the test's browser and the URL it shows.
type webPage struct {
	name string
	tab  context.Context
	url  string
}

// startWebLesson starts the web view over a real scenario driver playing
// name in step mode at speed 0, and returns the lesson's session and the
// server. Both stop when the test ends.
func startWebLesson(t *testing.T, name string) (*teeSession, *web.Server) {
	t.Helper()
	d, err := newScenarioDriver(t.TempDir(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	tee := &teeDriver{Driver: d}
	srv, err := web.New(web.Config{
		Addr:     "127.0.0.1:0",
		Driver:   tee,
		Scenario: name,
		Start:    tui.StartOptions{Mode: flow.ModeStep, Speed: 0, Lang: "en"},
	})
	if err != nil {
		t.Fatalf("web.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		if err := srv.Close(); err != nil {
			t.Errorf("web server Close: %v", err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("driver Close: %v", err)
		}
	})
	if err := srv.Start(ctx); err != nil {
		t.Fatalf("web server Start: %v", err)
	}
	if !strings.HasPrefix(srv.TeacherURL(), srv.URL()+"?key=") {
		t.Fatalf("TeacherURL() = %q; want URL() %q with ?key=", srv.TeacherURL(), srv.URL())
	}
	return tee.session(t, 1), srv
}

// waitText waits until the text of tab's element sel contains want.
func waitText(t *testing.T, tab context.Context, sel, want string) {
	t.Helper()
	waitDOM(t, tab, fmt.Sprintf("%s says %q", sel, want), fmt.Sprintf(`(() => {
		const s = document.querySelector(%q)?.textContent ?? "(absent)";
		return {ok: s.includes(%q), state: s};
	})()`, sel, want))
}

// isShown is a JavaScript expression: whether element sel has a box.
func isShown(sel string) string {
	return fmt.Sprintf(`((el) => !!el && el.getClientRects().length > 0)(document.querySelector(%q))`, sel)
}

// postControl is a JavaScript expression that POSTs body to /api/control
// from the page, with header key when not "", and yields the status.
func postControl(body, key string) string {
	headers := `{"Content-Type": "application/json"}`
	if key != "" {
		headers = fmt.Sprintf(`{"Content-Type": "application/json", "X-Kubesim-Key": %q}`, key)
	}
	return fmt.Sprintf(`fetch("/api/control", {method: "POST", headers: %s, body: %q}).then(r => r.status)`, headers, body)
}

// checkControlsRefused checks that the teacher's page shows the controls
// and the viewers' do not, and that the server refuses a viewer's POST
// /api/control, without a key and with a wrong one.
func checkControlsRefused(t *testing.T, teacher context.Context, viewers ...context.Context) {
	t.Helper()
	waitSelector(t, teacher, "#controls")
	waitSelector(t, teacher, "#next")
	for i, v := range viewers {
		if mustEval[bool](t, v, isShown("#controls")) {
			t.Errorf("viewer %d: #controls is shown", i+1)
		}
		for _, key := range []string{"", strings.Repeat("0", 32)} {
			if got := mustEval[int](t, v, postControl(`{"action":"next"}`, key)); got != 403 {
				t.Errorf("viewer %d: POST /api/control (key %q) answered %d; want 403", i+1, key, got)
			}
		}
	}
}

// answerFirstQuestion waits until the lesson asks its first question,
// has viewer i click choice i-1, and waits until the teacher's tally
// counts one answer for each of those choices.
func answerFirstQuestion(t *testing.T, teacher context.Context, viewers ...context.Context) {
	t.Helper()
	for i, v := range viewers {
		waitDOM(t, v, fmt.Sprintf("viewer %d sees a question with %d choices", i+1, len(viewers)), fmt.Sprintf(`(() => {
			const n = document.querySelectorAll("#question .choice").length;
			return {ok: %s && n >= %d, state: n + " choices"};
		})()`, isShown("#question"), len(viewers)))
	}
	for i, v := range viewers {
		sel := fmt.Sprintf(`#question .choice[data-index="%d"]`, i)
		browserDo(t, v, fmt.Sprintf("viewer %d clicks choice %d", i+1, i), chromedp.Click(chromedp.CSS(sel)))
		waitDOM(t, v, fmt.Sprintf("viewer %d's choice %d marked chosen", i+1, i), fmt.Sprintf(`(() => {
			const c = document.querySelector(%q);
			return {ok: !!c && c.classList.contains("chosen"), state: c ? c.className : "absent"};
		})()`, sel))
	}
	waitDOM(t, teacher, "the tally counts one answer for choice 0 and one for choice 1", `(() => {
		const c = [...document.querySelectorAll("#tally .count")].map(e => e.dataset.index + "=" + e.textContent.trim());
		const count = i => document.querySelector('#tally .count[data-index="'+i+'"]')?.textContent.trim();
		return {ok: count(0) === "1" && count(1) === "1", state: c.join(" ")};
	})()`)
	for i, v := range viewers {
		if mustEval[bool](t, v, isShown("#tally")) {
			t.Errorf("viewer %d is shown the tally, which is the teacher's", i+1)
		}
	}
}

// arrowsJS is a JavaScript expression: the arrows drawn in #diagram, in
// document order, as {id, stage, kind}.
const arrowsJS = `[...document.querySelectorAll("#diagram g.arrow")].map(g => ({id: +g.dataset.id, stage: +g.dataset.stage, kind: g.dataset.kind}))`

// pageArrow is one g.arrow of a page.
type pageArrow struct {
	ID    int    `json:"id"`
	Stage int    `json:"stage"`
	Kind  string `json:"kind"`
}

// driveUntilStage steps the lesson with the teacher's #next until an
// arrow of stage last is drawn, and returns the id of the first arrow of
// each stage 1..last (index = stage).
func driveUntilStage(t *testing.T, teacher context.Context, sess *teeSession, last int) []int {
	t.Helper()
	driveUntil(t, teacher, sess, fmt.Sprintf("an arrow of stage %d", last), fmt.Sprintf(`(() => {
		const stages = new Set(%s.map(a => a.stage));
		return {ok: stages.has(%d), state: "stages " + [...stages].sort().join(",")};
	})()`, arrowsJS, last))
	arrows := mustEval[[]pageArrow](t, teacher, arrowsJS)
	firsts := make([]int, last+1)
	for _, a := range arrows {
		if a.Stage >= 1 && a.Stage <= last && (firsts[a.Stage] == 0 || a.ID < firsts[a.Stage]) {
			firsts[a.Stage] = a.ID
		}
	}
	for s := 1; s <= last; s++ {
		if firsts[s] == 0 {
			t.Errorf("no arrow of stage %d drawn once stage %d's was", s, last)
		}
	}
	return firsts
}

// driveUntil clicks the teacher's #next each time the lesson's gate holds
// something new, until cond (a waitDOM expression on the teacher's page)
// is ok. It clicks once per held set, and waits for the server to let it
// go before it clicks again.
func driveUntil(t *testing.T, teacher context.Context, sess *teeSession, what, cond string) {
	t.Helper()
	clicked := ""
	waitfor.Progress(t, what+", stepping with #next", func(ctx context.Context) (bool, string, error) {
		st, err := evalJS[domState](ctx, teacher, cond)
		if err != nil {
			return false, "", err
		}
		if st.OK {
			return true, "", nil
		}
		held := sess.Gate().Held()
		now := fmt.Sprint(held)
		if len(held) > 0 && now != clicked {
			if _, err := evalJS[chromedp.Void](ctx, teacher, `document.querySelector("#next").click()`); err != nil {
				return false, "", err
			}
			clicked = now
		}
		return false, st.State + "; held " + now, nil
	}, waitfor.PollEvery(domPollInterval))
}

// checkScheduleEvidence clicks the first stage-4 (schedule) arrow on the
// teacher's page and checks that #evidence shows the scoring the run
// recorded for nginx: every node, and each feasible node's total on its
// line.
func checkScheduleEvidence(t *testing.T, teacher context.Context, sess *teeSession) {
	t.Helper()
	var decision *flow.SchedulingDecision
	for _, ev := range sess.recorded() {
		if ev.Stage == flow.StageScheduled && ev.Scheduling != nil && ev.Object.Name == "nginx" {
			decision = ev.Scheduling
			break
		}
	}
	if decision == nil || decision.Chosen == "" || len(decision.Nodes) == 0 {
		t.Fatalf("the run recorded no scheduling decision for nginx: %+v", decision)
	}
	const sel = `#diagram g.arrow[data-stage="4"][data-kind="schedule"]`
	mustEval[chromedp.Void](t, teacher, fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new MouseEvent("click", {bubbles: true}))`, sel))
	waitDOM(t, teacher, "#evidence shows the scheduling of nginx", fmt.Sprintf(`(() => {
		const lines = [...document.querySelectorAll("#evidence .line")].map(e => e.textContent);
		return {ok: %s && lines.some(l => l.includes(%q)), state: JSON.stringify(lines)};
	})()`, isShown("#evidence"), decision.Chosen))
	lines := mustEval[[]string](t, teacher, `[...document.querySelectorAll("#evidence .line")].map(e => e.textContent)`)
	t.Logf("the stage-4 arrow's evidence:\n%s", strings.Join(lines, "\n"))
	for _, n := range decision.Nodes {
		// The node's own row: its name, and its total when it was scored
		// (other lines, a tie's, may name it too).
		row := slices.IndexFunc(lines, func(l string) bool {
			f := strings.Fields(l)
			return slices.Contains(f, n.Node) && (!n.Feasible || len(n.Scores) == 0 || slices.Contains(f, fmt.Sprint(n.Total)))
		})
		if row < 0 {
			t.Errorf("#evidence has no row for node %s (with its total %d); the run's decision: %s", n.Node, n.Total, jsonOf(decision))
		}
		for _, sc := range n.Scores {
			if !slices.ContainsFunc(lines, func(l string) bool {
				return strings.Contains(l, sc.Plugin) && strings.Contains(l, fmt.Sprint(sc.Score))
			}) {
				t.Errorf("#evidence has no line with %s's score %d", sc.Plugin, sc.Score)
			}
		}
	}
	if title := mustEval[string](t, teacher, `document.querySelector("#evidence-title")?.textContent ?? ""`); title == "" {
		t.Errorf("#evidence-title is empty")
	}
}

// checkSameArrows checks that every page draws the arrows the teacher's
// draws now: the same ids, kinds and stages, in the same order. The
// lesson may still be drawing, so each page is compared up to the
// teacher's last arrow once it has drawn that one.
func checkSameArrows(t *testing.T, pages []webPage) {
	t.Helper()
	want := mustEval[[]pageArrow](t, pages[0].tab, arrowsJS)
	if len(want) == 0 {
		t.Fatal("the teacher's page draws no arrow")
	}
	last := want[len(want)-1].ID
	for _, p := range pages[1:] {
		waitDOM(t, p.tab, fmt.Sprintf("%s draws arrow #%d", p.name, last), fmt.Sprintf(`(() => {
			const ids = %s.map(a => a.id);
			return {ok: ids.includes(%d), state: ids.length + " arrows, the last #" + ids[ids.length-1]};
		})()`, arrowsJS, last))
		got := mustEval[[]pageArrow](t, p.tab, arrowsJS)
		got = slices.DeleteFunc(got, func(a pageArrow) bool { return a.ID > last })
		if !slices.Equal(got, want) {
			t.Errorf("%s draws %d arrows up to #%d, the teacher %d; first difference at %d\n%s: %v\nteacher: %v",
				p.name, len(got), last, len(want), firstDiff(got, want), p.name, got, want)
		}
	}
}

// firstDiff returns the first index where a and b differ.
func firstDiff(a, b []pageArrow) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// jsonOf is v in JSON, for failure messages.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
