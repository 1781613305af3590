package tui

import (
	"strings"

	"github.com/kubesim/kubesim/internal/flow"
)

// A scenario step's own requests are those its action's clients sent
// (scenarioRequest: their user agent), not the controller manager's
// Lease renewals or any other component's traffic. While the step runs
// they are filed under it as their traces come; the events and the steps
// come on two channels, so a request may be filed under the step before
// or after its own. Once the step has ended, its update names the audit
// IDs of its action's requests (StepUpdate.RequestIDs): those are moved
// under it, wherever they were filed, and filed there when they come
// later.

// fileStepRequest files e's request under the step it belongs to: the
// one that named it, else the current step.
func (m *Model) fileStepRequest(e flow.Event) {
	r := e.Request
	if e.Stage != 0 || r == nil || !m.hasStep || !scenarioRequest(r) {
		return
	}
	i, ok := m.requestOf[r.AuditID]
	if !ok || r.AuditID == "" {
		i = m.step.Index
	}
	m.requestsByStep[i] = addStepRequest(m.requestsByStep[i], e)
}

// settleStepRequests moves the requests an ended step names under it.
func (m *Model) settleStepRequests(up StepUpdate) {
	if !up.Done || len(up.RequestIDs) == 0 {
		return
	}
	named := map[string]bool{}
	for _, id := range up.RequestIDs {
		named[id] = true
		m.requestOf[id] = up.Index
	}
	var mine []stepRequest
	for i, rs := range m.requestsByStep {
		var keep []stepRequest
		for _, r := range rs {
			if named[r.tr.AuditID] {
				mine = append(mine, r)
			} else {
				keep = append(keep, r)
			}
		}
		m.requestsByStep[i] = keep
	}
	// in the order the action sent them
	order := map[string]int{}
	for k, id := range up.RequestIDs {
		order[id] = k
	}
	var rs []stepRequest
	for k := range up.RequestIDs {
		for _, r := range mine {
			if order[r.tr.AuditID] == k {
				rs = append(rs, r)
			}
		}
	}
	m.requestsByStep[up.Index] = rs
}

// stepRequests returns the step whose requests the evidence pane shows,
// and its requests: the current step's, or, while it has made none yet
// (held at its gate, say), the latest ended step's. Nil when the
// evidence is a pod's: the step created one (a pod admitted during the
// step counts before its create's request has ended), its action is not
// a request, or the learner chose a stage with ←/→.
func (m *Model) stepRequests() (int, []stepRequest) {
	if !m.hasStep || m.stagePinned {
		return 0, nil
	}
	up := m.step
	if done := m.walk.lastDone(); !up.Done && len(m.requestsByStep[up.Index]) == 0 && done != nil {
		up = *done
	}
	if !requestAction(up.Action) || m.podSteps[up.Index] {
		return 0, nil
	}
	rs := m.requestsByStep[up.Index]
	// a request of this step may have been filed under the previous one
	if f := strings.Fields(up.Action); len(f) >= 3 && f[0] == "http" {
		var late []stepRequest
		for _, r := range m.requestsByStep[up.Index-1] {
			if r.tr.Method == f[1] && r.tr.URI == f[2] {
				late = append(late, r)
			}
		}
		rs = append(late, rs...)
	}
	for _, r := range rs {
		if _, ok := m.tracks.byUID[r.obj.UID]; ok && r.obj.UID != "" {
			return 0, nil // the step made a pod we follow through its stages
		}
	}
	return up.Index, rs
}

// requestAction reports whether a step's action (StepUpdate.Action) is
// a request to the API server: the requests of the others (adding a
// node, stopping a kubelet, a step with only expectations) are the
// runner's polls, not worth showing instead of the pod.
func requestAction(action string) bool {
	verb, _, _ := strings.Cut(action, " ")
	switch verb {
	case "create", "apply", "applyFile", "update", "delete", "patch", "http":
		return true
	}
	return false
}
