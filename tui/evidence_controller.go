package tui

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// The controllers' actions in the TUI: a pod a controller created shows,
// in its stage 1 on the request tab, who created it and why, above the
// API server's trace of the create; the step tab lists the latest
// actions of every controller (a Deployment scaling its ReplicaSets, the
// garbage collector deleting dependents), each with its evidence.

// Bounds of what the TUI keeps of the controllers' latest actions.
const (
	maxControllerActions = 32 // the latest actions kept
	shownControllerActs  = 6  // of which the step tab shows
)

func init() {
	for k, v := range controllerUIText {
		uiText[k] = v
	}
}

// controllerUIText are the TUI's words about the controllers.
var controllerUIText = map[string]flow.Text{
	"creator_pending": {En: "created by a controller (its service account sent the POST); who and why show here once the POST returns the pod's name to it",
		Zh: "由控制器创建（POST 来自它的 ServiceAccount）；POST 把 Pod 的名字返回给它之后，这里会显示是谁、为什么"},
	"controllers_latest": {En: "the controllers' latest actions, newest first:", Zh: "控制器最近的动作，最新的在前："},
}

// controllerLog keeps the latest controller actions and, until their
// pod's track exists, the creators of pods. Owned by the trackSet.
type controllerLog struct {
	recent   []flow.Event // oldest first
	creators flow.Creators
}

// add files a controller event: it reports whether e is the creator of
// a pod, which the pod's track files too; other actions are kept among
// the latest.
func (l *controllerLog) add(e flow.Event) bool {
	if flow.CreatorOf(e) != nil {
		return l.creators.File(e)
	}
	l.recent = append(l.recent, e)
	if n := len(l.recent) - maxControllerActions; n > 0 {
		l.recent = append([]flow.Event(nil), l.recent[n:]...)
	}
	return false
}

// creatorOf returns the creator of the pod of uid if it came before the
// pod's track was made.
func (l *controllerLog) creatorOf(uid types.UID) *flow.Event {
	e, ok := l.creators.Take(uid)
	if !ok {
		return nil
	}
	return &e
}

// creatorLines are the lines that begin stage 1's request tab: who
// created the pod and why, or, for a pod a controller's account created
// whose creator has not come yet, a note that it will.
func (v evidenceView) creatorLines(t *podTrack) []flow.Line {
	if t.creator != nil {
		return append(v.layout().Event(*t.creator, flow.Context{}), blankLine)
	}
	for _, e := range t.stages[flow.StageAdmitted] {
		if flow.CreatedByController(e) {
			return []flow.Line{note(tr(v.lang, "creator_pending")), blankLine}
		}
	}
	return nil
}

// controllerActions lays out the latest actions, newest first, for the
// step tab; nothing when there are none.
func (v evidenceView) controllerActions(l *controllerLog) []flow.Line {
	if len(l.recent) == 0 {
		return nil
	}
	out := []flow.Line{blankLine, note(tr(v.lang, "controllers_latest"))}
	for i := len(l.recent) - 1; i >= 0 && i >= len(l.recent)-shownControllerActs; i-- {
		out = append(out, blankLine)
		out = append(out, v.layout().Event(l.recent[i], flow.Context{})...)
	}
	return out
}
