package kubelet

import (
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeletConditions are the pod conditions the kubelet owns; the others
// (DisruptionTarget, readiness gates' conditions...) it leaves as they are.
var kubeletConditions = map[corev1.PodConditionType]bool{
	corev1.PodScheduled:              true,
	corev1.PodReady:                  true,
	corev1.PodInitialized:            true,
	corev1.ContainersReady:           true,
	corev1.PodResizeInProgress:       true,
	corev1.PodResizePending:          true,
	corev1.PodReadyToStartContainers: true,
}

func rfc3339(t time.Time) metav1.Time {
	if t.IsZero() {
		return metav1.Time{}
	}
	return metav1.NewTime(t).Rfc3339Copy()
}

// containerStatus is c's status as the kubelet writes it: Waiting
// (ContainerCreating, or PodInitializing in a pod with init containers,
// or the reason it does not run), Running, or Terminated; with the last
// termination when it was restarted.
func (m *podMachine) containerStatus(c *container, now time.Time, hasInit bool) corev1.ContainerStatus {
	started := false
	st := corev1.ContainerStatus{Name: c.spec.Name, Image: c.spec.Image, RestartCount: c.restartCount, Started: &started}
	def := ReasonContainerCreating
	if hasInit {
		def = ReasonPodInitializing
	}
	i := c.cur
	if i == nil {
		st.State.Waiting = &corev1.ContainerStateWaiting{Reason: def}
		if c.waiting != nil {
			st.State.Waiting = c.waiting.DeepCopy()
		}
		return st
	}
	st.Image = i.image.String()
	st.ImageID = i.imageID
	st.ContainerID = runtimeScheme + i.id
	st.Resources = c.spec.Resources.DeepCopy()
	st.AllocatedResources = c.spec.Resources.Requests.DeepCopy()
	switch {
	case i.running():
		st.State.Running = &corev1.ContainerStateRunning{StartedAt: rfc3339(i.started)}
		started = true
		// An init container is ready once it has succeeded; an app
		// container from readyAt on, while its readiness passes.
		fails, _ := readinessFails(m.pod, &c.spec)
		fails = fails || (m.health != nil && !m.health())
		st.Ready = !c.init && !now.Before(i.readyAt) && !fails
		if c.prev != nil && c.prev.exited() {
			st.LastTerminationState.Terminated = c.prev.terminated()
		}
	case c.waiting != nil && !m.terminated && m.shouldRestart(c):
		st.State.Waiting = c.waiting.DeepCopy()
		st.LastTerminationState.Terminated = i.terminated()
	default:
		st.State.Terminated = i.terminated()
		if c.prev != nil && c.prev.exited() {
			st.LastTerminationState.Terminated = c.prev.terminated()
		}
		st.Ready = c.init && i.exitCode == 0
	}
	return st
}

func (m *podMachine) initStatuses(now time.Time) []corev1.ContainerStatus {
	out := make([]corev1.ContainerStatus, 0, len(m.init))
	for _, c := range m.init {
		out = append(out, m.containerStatus(c, now, true))
	}
	return out
}

// appStatuses are the app containers' statuses, sorted by name as the
// kubelet sorts them.
func (m *podMachine) appStatuses(now time.Time) []corev1.ContainerStatus {
	out := make([]corev1.ContainerStatus, 0, len(m.app))
	for _, c := range m.app {
		out = append(out, m.containerStatus(c, now, len(m.init) > 0))
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

func findStatus(list []corev1.ContainerStatus, name string) (corev1.ContainerStatus, bool) {
	for _, s := range list {
		if s.Name == name {
			return s, true
		}
	}
	return corev1.ContainerStatus{}, false
}

// phase is the pod's phase from its containers' statuses, as the
// kubelet's getPhase (restartable init containers aside): Pending while an
// init container has not succeeded or an app container waits for its
// first start; Running while one runs or restarts; Succeeded or Failed
// when all have exited for good (terminal: the pod is being deleted and
// nothing will restart).
func (m *podMachine) phase(initSt, appSt []corev1.ContainerStatus, terminal bool) corev1.PodPhase {
	pendingInit, failedInitNotRestartable := 0, 0
	for _, c := range m.init {
		s, ok := findStatus(initSt, c.spec.Name)
		switch {
		case !ok:
			pendingInit++
		case s.State.Running != nil:
			pendingInit++
		case s.State.Terminated != nil:
			if code := s.State.Terminated.ExitCode; code != 0 && !m.restartable(c, code) {
				failedInitNotRestartable++
			}
		case s.State.Waiting != nil:
			if t := s.LastTerminationState.Terminated; t != nil {
				if t.ExitCode != 0 && !m.restartable(c, t.ExitCode) {
					failedInitNotRestartable++
				}
			} else {
				pendingInit++
			}
		default:
			pendingInit++
		}
	}
	unknown, running, waiting, stopped, stoppedNotRestartable, succeeded := 0, 0, 0, 0, 0, 0
	for _, c := range m.app {
		s, ok := findStatus(appSt, c.spec.Name)
		switch {
		case !ok:
			unknown++
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			code := s.State.Terminated.ExitCode
			if !m.restartable(c, code) {
				stoppedNotRestartable++
			}
			if code == 0 {
				succeeded++
			}
		case s.State.Waiting != nil:
			if t := s.LastTerminationState.Terminated; t != nil {
				stopped++
				if !m.restartable(c, t.ExitCode) {
					stoppedNotRestartable++
				}
			} else {
				waiting++
			}
		default:
			unknown++
		}
	}
	switch {
	case failedInitNotRestartable > 0:
		return corev1.PodFailed
	case pendingInit > 0 || waiting > 0:
		return corev1.PodPending
	case running > 0 && unknown == 0:
		return corev1.PodRunning
	case running == 0 && stopped > 0 && unknown == 0:
		switch {
		case terminal && stopped == succeeded:
			return corev1.PodSucceeded
		case terminal:
			return corev1.PodFailed
		case stopped != stoppedNotRestartable:
			return corev1.PodRunning
		case stopped == succeeded:
			return corev1.PodSucceeded
		}
		return corev1.PodFailed
	}
	return corev1.PodPending
}

// status computes the pod's status at now, as the kubelet's
// generateAPIPodStatus and status manager do, from the machine's state
// and the status it computed last (for transition times and the start
// time). Times are to the second (RFC 3339), as the status manager
// normalizes them.
func (m *podMachine) status(now time.Time) corev1.PodStatus {
	old := m.last
	if old == nil {
		old = &m.pod.Status
	}
	initSt, appSt := m.initStatuses(now), m.appStatuses(now)
	phase := m.phase(initSt, appSt, m.terminated)
	if m.terminated {
		phase = m.terminatePod(initSt, appSt, phase)
	}
	if m.deadlineExceeded {
		phase = corev1.PodFailed
	}
	// A pod never leaves a terminal phase.
	if p := m.pod.Status.Phase; (p == corev1.PodSucceeded || p == corev1.PodFailed) && phase != p {
		phase = p
	}
	s := corev1.PodStatus{
		Phase:              phase,
		ObservedGeneration: m.pod.Generation,
		QOSClass:           m.pod.Status.QOSClass,
		HostIP:             m.rt.hostIP,
		HostIPs:            []corev1.HostIP{{IP: m.rt.hostIP}},
		ContainerStatuses:  appSt,
	}
	if len(initSt) > 0 {
		s.InitContainerStatuses = initSt
	}
	if phase == old.Phase {
		s.Reason, s.Message = old.Reason, old.Message
	}
	if m.deadlineExceeded {
		s.Reason, s.Message = ReasonDeadlineExceeded, msgDeadlineExceeded
	}
	if m.podIP != "" {
		s.PodIP = m.podIP
		s.PodIPs = []corev1.PodIP{{IP: m.podIP}}
	}
	switch {
	case old.StartTime != nil && !old.StartTime.IsZero():
		t := *old.StartTime
		s.StartTime = &t
	default:
		t := rfc3339(now)
		s.StartTime = &t
	}

	for _, c := range m.pod.Status.Conditions {
		if !kubeletConditions[c.Type] {
			s.Conditions = append(s.Conditions, c)
		}
	}
	all := append(append([]corev1.ContainerStatus(nil), initSt...), appSt...)
	ready := m.readyCondition(s.Conditions, appSt, phase)
	for _, c := range []corev1.PodCondition{
		m.readyToStartCondition(),
		m.initializedCondition(all, phase),
		ready,
		m.containersReadyCondition(appSt, phase),
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
	} {
		c.ObservedGeneration = m.pod.Generation
		c.LastTransitionTime = rfc3339(now)
		for _, o := range old.Conditions {
			if o.Type == c.Type && o.Status == c.Status {
				c.LastTransitionTime = o.LastTransitionTime
			}
		}
		s.Conditions = append(s.Conditions, c)
	}
	return s
}

// terminatePod is the status manager's TerminatePod: in a pod that was
// terminated, containers that never ran are reported as lost and a phase
// that is not terminal becomes Failed.
func (m *podMachine) terminatePod(initSt, appSt []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodPhase {
	lost := func(s *corev1.ContainerStatus) {
		s.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			Reason: ReasonContainerStatusUnknown, Message: messageContainerNotLocated, ExitCode: 137}}
	}
	initialized := len(m.init) == 0
	for _, s := range appSt {
		if s.LastTerminationState.Terminated != nil || s.State.Waiting == nil {
			initialized = true
		}
	}
	if n := len(initSt); n > 0 {
		if t := initSt[n-1].State.Terminated; t != nil && t.ExitCode == 0 {
			initialized = true
		}
	}
	if initialized {
		for i := range appSt {
			if appSt[i].State.Terminated == nil {
				lost(&appSt[i])
			}
		}
	}
	// Init containers that were tried (all but the trailing ones still
	// waiting; at least the first).
	tried := len(initSt)
	for tried > 0 && initSt[tried-1].State.Waiting != nil && initSt[tried-1].LastTerminationState.Terminated == nil {
		tried--
	}
	if tried == 0 && len(initSt) > 0 {
		tried = 1
	}
	for i := 0; i < tried; i++ {
		if initSt[i].State.Terminated == nil {
			lost(&initSt[i])
		}
	}
	if phase != corev1.PodSucceeded && phase != corev1.PodFailed {
		return corev1.PodFailed
	}
	return phase
}

func (m *podMachine) readyToStartCondition() corev1.PodCondition {
	if m.sandboxUp {
		return corev1.PodCondition{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue}
	}
	msg := MessageNoPodSandbox
	if m.sandboxEver {
		msg = MessageSandboxNotReady
	}
	return corev1.PodCondition{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionFalse, Reason: ReasonPodSandboxNotReady, Message: msg}
}

func (m *podMachine) initializedCondition(all []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodCondition {
	if phase == corev1.PodSucceeded {
		return corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, Reason: ReasonPodCompleted}
	}
	for _, c := range m.app {
		if s, ok := findStatus(all, c.spec.Name); ok && (s.State.Running != nil || s.State.Terminated != nil) {
			return corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}
		}
	}
	var incomplete []string
	for _, c := range m.init {
		if s, ok := findStatus(all, c.spec.Name); !ok || !s.Ready {
			incomplete = append(incomplete, c.spec.Name)
		}
	}
	if len(incomplete) > 0 {
		return corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionFalse, Reason: ReasonContainersNotInitialized,
			Message: fmt.Sprintf("containers with incomplete status: %s", incomplete)}
	}
	return corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}
}

func (m *podMachine) containersReadyCondition(appSt []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodCondition {
	switch phase {
	case corev1.PodSucceeded:
		return corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: ReasonPodCompleted}
	case corev1.PodFailed:
		return corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: ReasonPodFailed}
	}
	var unready []string
	for _, c := range m.app {
		if s, ok := findStatus(appSt, c.spec.Name); !ok || !s.Ready {
			unready = append(unready, c.spec.Name)
		}
	}
	if len(unready) > 0 {
		return corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionFalse, Reason: ReasonContainersNotReady,
			Message: fmt.Sprintf("containers with unready status: %s", unready)}
	}
	return corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}
}

// readyCondition is ContainersReady, then the readiness gates.
func (m *podMachine) readyCondition(conds []corev1.PodCondition, appSt []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodCondition {
	cr := m.containersReadyCondition(appSt, phase)
	if cr.Status != corev1.ConditionTrue {
		return corev1.PodCondition{Type: corev1.PodReady, Status: cr.Status, Reason: cr.Reason, Message: cr.Message}
	}
	var msgs []string
	for _, g := range m.pod.Spec.ReadinessGates {
		var found *corev1.PodCondition
		for i := range conds {
			if conds[i].Type == g.ConditionType {
				found = &conds[i]
			}
		}
		switch {
		case found == nil:
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(g.ConditionType)))
		case found.Status != corev1.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(g.ConditionType), found.Status))
		}
	}
	if len(msgs) > 0 {
		return corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: "ReadinessGatesNotReady", Message: strings.Join(msgs, ", ")}
	}
	return corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}
}

// nextStatus computes the status at now and reports whether it differs
// from the one computed last; either way it becomes the last one. While
// the pod's containers are being stopped only the first status counts
// (the kubelet reports the status before the kill and after it).
func (m *podMachine) nextStatus(now time.Time) (corev1.PodStatus, bool) {
	if m.killing && !m.terminated && m.last != nil {
		if m.killReported {
			return *m.last.DeepCopy(), false
		}
		m.killReported = true
	}
	s := m.status(now)
	changed := m.last == nil || !apiequality.Semantic.DeepEqual(*m.last, s)
	m.last = s.DeepCopy()
	return s, changed
}
