package scenarios

import (
	"fmt"
	"strings"

	"github.com/kubesim/kubesim/internal/flow"
)

// An expectation that reads an object from the API says, when it holds,
// what it read: the fields it checked as the object had them (a
// condition with its status, reason and message; an Endpoints' addresses
// and ports), so that a lesson whose narration states them shows them
// from the run, beneath the step's result (StepResult.Checked).

// shownWords are the words of what expectations saw.
var shownWords = map[string]flow.Text{
	"condition": {En: "%s: %s=%s, reason %s, message %q", Zh: "%s：%s=%s，原因 %s，消息 %q"},
	"no_reason": {En: "%s: %s=%s, no reason, message %q", Zh: "%s：%s=%s，没有原因，消息 %q"},
	"taints":    {En: "Node %s: taints %s", Zh: "Node %s：污点 %s"},
	"no_taints": {En: "Node %s: no taints", Zh: "Node %s：没有污点"},
	"endpoints": {En: "Endpoints %s: ready: %s; not ready: %s; ports: %s", Zh: "Endpoints %s：就绪：%s；未就绪：%s；端口：%s"},
	"slices":    {En: "EndpointSlices of service %s (%d): ready: %s; not ready: %s; ports: %s", Zh: "Service %s 的 EndpointSlice（%d 个）：就绪：%s；未就绪：%s；端口：%s"},
	"none":      {En: "none", Zh: "无"},
}

// shown formats the shownWords of key with args, in both languages.
func shown(key string, args ...any) flow.Text {
	w := shownWords[key]
	return flow.Text{En: fmt.Sprintf(w.En, args...), Zh: fmt.Sprintf(w.Zh, args...)}
}

// conditionShown is a condition of object as read.
func conditionShown(object, typ, status, reason, message string) flow.Text {
	if reason == "" {
		return shown("no_reason", object, typ, status, message)
	}
	return shown("condition", object, typ, status, reason, message)
}

// listShown is items joined by ", ", or the word for none.
func listShown(items []string) flow.Text {
	if len(items) == 0 {
		return shownWords["none"]
	}
	s := strings.Join(items, ", ")
	return flow.Text{En: s, Zh: s}
}

// saw notes what a probe read, when it holds; check keeps it for the
// step's result if the probe held.
func (p *player) saw(lines ...flow.Text) {
	p.mu.Lock()
	p.seen = append(p.seen, lines...)
	p.mu.Unlock()
}

// takeSeen returns what the probes noted since it was last called, and
// forgets it.
func (p *player) takeSeen() []flow.Text {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.seen
	p.seen = nil
	return s
}
