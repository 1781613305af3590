package scenarios

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// A pod that a controller created begins, in the plain printer, with
// who created it and why: the controller's action (the informer event
// that queued the key, the decision with its figures, the writes, the
// ownerReference), before its stage 1. The controller learns the pod's
// name only when its POST returns, after the API server recorded stages
// 1 and 2, so a pod whose create came from a controller's service
// account is held until its creator's event arrives (or, if it never
// does, until the step after next begins, or the scenario ends).

// createdWords are the printer's words for a pod's creation.
var createdWords = map[string]flow.Text{
	"created_head":  {En: "[before 1/8] Who created it — pod %s", Zh: "[1/8 之前] 谁创建了它 — Pod %s"},
	"created_aside": {En: "%s %s: who created it", Zh: "%s %s：谁创建了它"},
}

// noteCreated, on a pod's staged event, holds the pod until its
// creator's event comes if a controller created it, or puts the creator
// block (already come) first. The caller holds p.mu.
func (p *PlainPrinter) noteCreated(ev flow.Event) {
	uid := ev.Object.UID
	if creator, ok := p.creators.Take(uid); ok {
		p.emitCreator(ev.Object, p.creatorBlock(creator), creator.Time)
		return
	}
	if !flow.CreatedByController(ev) {
		return
	}
	if p.awaiting == nil {
		p.awaiting = map[types.UID]int{}
	}
	p.awaiting[uid] = p.step
}

// awaits reports whether the pod of uid waits for its creator's event.
// The caller holds p.mu.
func (p *PlainPrinter) awaits(uid types.UID) bool {
	_, ok := p.awaiting[uid]
	return ok
}

// giveUpAwaiting lets go the pods that have waited for their creator
// since before the previous step. The caller holds p.mu.
func (p *PlainPrinter) giveUpAwaiting() {
	for uid, since := range p.awaiting {
		if since < p.step-1 {
			delete(p.awaiting, uid)
		}
	}
}

// controllerEvent prints a controller's action: an object's creation
// before the rest of its story; an action about another object as an
// aside, unless it created pods (their blocks show it). The caller holds
// p.mu.
func (p *PlainPrinter) controllerEvent(ev flow.Event) {
	if a := flow.CreatorOf(ev); a != nil {
		p.noteOwner(ev)
		if ev.Object.Kind == "Pod" {
			p.podCreated(ev)
		} else {
			p.objectCreated(ev)
		}
		return
	}
	if createdPods(ev.Controller) || p.creationsShown(ev.Controller) {
		return
	}
	var b strings.Builder
	writeLines(&b, asideIndent, stageIndent, p.layout.Event(ev, flow.Context{}))
	p.emit(heldBlock{pod: ev.Object, text: b.String(), at: ev.Time})
}

// objectCreated prints, as an aside, the action of a controller that
// created an object other than a pod (the deployment controller's
// ReplicaSet) as soon as its POST returned, so that it comes before the
// pods the new object's controller then makes. The caller holds p.mu.
func (p *PlainPrinter) objectCreated(ev flow.Event) {
	if p.shownCreations == nil {
		p.shownCreations = map[types.UID]bool{}
	}
	p.shownCreations[ev.Object.UID] = true
	var b strings.Builder
	b.WriteString(asideIndent + fmt.Sprintf(createdWords["created_aside"].In(p.lang), ev.Object.Kind, nsName(ev.Object.Namespace, ev.Object.Name)) + "\n")
	writeLines(&b, stageIndent, stageIndent, p.layout.Event(ev, flow.Context{}))
	p.emit(heldBlock{pod: ev.Object, text: b.String(), at: ev.Time})
}

// creationsShown reports whether the action created something and each
// of its creations was printed already, when its POST returned
// (objectCreated): the whole action, which adds the status writes after
// them, is then left out.
func (p *PlainPrinter) creationsShown(a *flow.ControllerAction) bool {
	created := 0
	for _, w := range a.Writes {
		if w.Method != "POST" || w.UID == "" || w.Code/100 != 2 {
			continue
		}
		if !p.shownCreations[w.UID] {
			return false
		}
		created++
	}
	return created > 0
}

// createdPods reports whether the action created pods.
func createdPods(a *flow.ControllerAction) bool {
	for _, w := range a.Writes {
		if w.Method == "POST" && w.Resource == "pods" && w.UID != "" && w.Code/100 == 2 {
			return true
		}
	}
	return false
}

// podCreated handles the event of a pod's creator: the pod waiting for
// it gets it first, then what was held; a pod not seen yet gets it when
// its stage 1 comes (noteCreated). The caller holds p.mu.
func (p *PlainPrinter) podCreated(ev flow.Event) {
	uid := ev.Object.UID
	if !p.staged[uid] {
		p.creators.File(ev)
		return
	}
	text := p.creatorBlock(ev)
	if !p.awaits(uid) {
		p.emitCreator(ev.Object, text, ev.Time) // late: its stages may be out already
		return
	}
	delete(p.awaiting, uid)
	// The creator's block comes before the pod's first: it acted first.
	first := heldBlock{pod: ev.Object, text: text, at: ev.Time, creator: true}
	if held := p.held[uid]; len(held) > 0 {
		first.step = held[0].step
		if first.at.IsZero() || held[0].at.Before(first.at) {
			first.at = held[0].at
		}
	}
	if len(p.held[uid]) == 0 {
		p.heldPods = append(p.heldPods, uid)
	}
	if p.held == nil {
		p.held = map[types.UID][]heldBlock{}
	}
	p.held[uid] = append([]heldBlock{first}, p.held[uid]...)
	p.flushHeld(false)
}

// creatorBlock is the block that tells who created a pod and why, from
// its creator's event.
func (p *PlainPrinter) creatorBlock(ev flow.Event) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n"+createdWords["created_head"].In(p.lang)+"\n", nsName(ev.Object.Namespace, ev.Object.Name))
	writeLines(&b, stageIndent, stageIndent, p.layout.Event(ev, flow.Context{}))
	return b.String()
}

// emitCreator prints a creator block, or holds it for the step the
// pod's stage 1 waits for. The caller holds p.mu.
func (p *PlainPrinter) emitCreator(pod flow.ObjectRef, text string, at time.Time) {
	if step := p.holdFor(pod, flow.StageAdmitted); step > 0 {
		p.hold(heldBlock{step: step, pod: pod, text: text, at: at, creator: true})
		return
	}
	p.emit(heldBlock{pod: pod, text: text, at: at, creator: true})
}
