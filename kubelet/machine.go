package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// container is the kubelet's record of one container of the pod spec.
type container struct {
	spec corev1.Container
	init bool
	b    behaviour

	cur, prev    *instance // the latest instance and the one before
	created      *instance // created by the start under way, not started yet
	attempts     int32     // instances created so far
	restartCount int32

	// waiting is why the container is not running, as the kubelet's
	// reason cache holds it (ErrImagePull, CrashLoopBackOff...).
	waiting *corev1.ContainerStateWaiting

	lastPullErr   string    // "ErrImagePull: <message>" of the last failed pull
	pullRetryAt   time.Time // end of the image pull back-off under way
	pullAnnounced time.Time // the pull back-off already announced (its end)
	neverPull     bool      // ErrImageNeverPull already reported
	configEnv     configEnv // what its environment took from ConfigMaps and Secrets
	configRetryAt time.Time // next attempt after a CreateContainerConfigError
	restartedFor  *instance // the exited instance the crash back-off counted
	restartAt     time.Time // end of the crash back-off under way
	announced     *instance // the exited instance whose back-off was announced
}

func (c *container) succeeded() bool {
	return c.cur != nil && c.cur.exited() && c.cur.exitCode == 0
}

// output is what one transition of a pod machine produced: a Kubernetes
// Event (when reason is set) and/or a runtime action for the flow.
type output struct {
	c         *container // nil: about the pod
	eventType string
	reason    string
	message   string
	action    *flow.RuntimeAction
	summary   string
	// start marks an action of the container's first start: a pull,
	// create or start of a container that never ran. The actions of a
	// restart, exits and kills are not.
	start bool
}

// podMachine is what the kubelet knows and does for one pod: its sandbox,
// its containers, and the runtime operation under way. It is a state
// machine driven by step with the current time, and does no I/O: the pod
// worker turns its outputs into events and its status into patches. It
// decides what to do next (sync); the steps it takes through the fake
// runtime are in runtime.go. It is not safe for concurrent use (its pod
// worker owns it).
type podMachine struct {
	node  string
	rt    *fakeRuntime
	base  Delays
	scale scaler

	pod  *corev1.Pod
	init []*container
	app  []*container

	op    *operation
	crash *backOff
	pulls *backOff

	sandboxUp   bool   // the sandbox runs
	sandboxEver bool   // a sandbox was created
	podIP       string // kept after the sandbox stops, as the kubelet does
	sandboxErr  string // why the sandbox could not be created
	sandboxWait time.Time
	mounts      mountState // the volumes' set-up (podvolumes.go)

	killing    bool // the pod is being deleted; its containers are stopping
	terminated bool // nothing will run any more; the sandbox is stopped
	// deadlineExceeded: the pod outlived its activeDeadlineSeconds; it is
	// being stopped, and has failed (deadline.go).
	deadlineExceeded bool
	// killReported: the status at the start of the kill was computed;
	// the next one is the final status, as the kubelet's
	// SyncTerminatingPod reports no status while it stops containers.
	killReported bool

	last *corev1.PodStatus // the status last computed (the status manager's cache)
	// health, for a static pod, tells whether its component is up: its
	// containers are ready only while it is. Nil: always.
	health func() bool
}

// newPodMachine returns the machine for pod. A pod whose status shows
// containers (a kubelet restart) is adopted: its running containers keep
// their IDs and start times, its images are on the node, its IP is its
// own.
func newPodMachine(node string, rt *fakeRuntime, base Delays, scale scaler, pod *corev1.Pod) *podMachine {
	m := &podMachine{
		node:  node,
		rt:    rt,
		base:  base,
		scale: scale,
		pod:   pod,
		crash: newBackOff(scale.backOff(CrashLoopBackOffInitial), scale.backOff(CrashLoopBackOffMax), scale.backOff(BackOffReset)),
		pulls: newBackOff(scale.backOff(ImagePullBackOffInitial), scale.backOff(ImagePullBackOffMax), scale.backOff(BackOffReset)),
	}
	for i := range pod.Spec.InitContainers {
		m.init = append(m.init, m.newContainer(&pod.Spec.InitContainers[i], true))
	}
	for i := range pod.Spec.Containers {
		m.app = append(m.app, m.newContainer(&pod.Spec.Containers[i], false))
	}
	m.adopt()
	return m
}

// untouched reports whether nothing was done for the pod yet: no
// sandbox, no container, not terminated (a pod the kubelet meets for the
// first time, or adopted from a status that shows nothing run).
func (m *podMachine) untouched() bool {
	if m.sandboxEver || m.terminated {
		return false
	}
	for _, c := range m.containers() {
		if c.cur != nil {
			return false
		}
	}
	return true
}

func (m *podMachine) newContainer(spec *corev1.Container, init bool) *container {
	return &container{spec: *spec.DeepCopy(), init: init, b: containerBehaviour(m.pod, spec, init, m.base.ReadinessDefault)}
}

func (m *podMachine) containers() []*container {
	return append(append([]*container(nil), m.init...), m.app...)
}

// adopt rebuilds the runtime's state from the pod's status.
func (m *podMachine) adopt() {
	st := m.pod.Status
	find := func(list []corev1.ContainerStatus, name string) *corev1.ContainerStatus {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
		return nil
	}
	for _, c := range m.containers() {
		list := st.ContainerStatuses
		if c.init {
			list = st.InitContainerStatuses
		}
		cs := find(list, c.spec.Name)
		if cs == nil {
			continue
		}
		c.restartCount = cs.RestartCount
		switch {
		case cs.State.Running != nil && cs.ContainerID != "":
			i := m.adoptInstance(c, cs, nil)
			i.started = cs.State.Running.StartedAt.Time
			i.readyAt = i.started.Add(m.scale.delay(c.b.readyAfter))
			c.cur = i
			if t := cs.LastTerminationState.Terminated; t != nil {
				c.prev = m.adoptInstance(c, cs, t)
			}
		case cs.State.Terminated != nil:
			c.cur = m.adoptInstance(c, cs, cs.State.Terminated)
			if t := cs.LastTerminationState.Terminated; t != nil {
				c.prev = m.adoptInstance(c, cs, t)
			}
		case cs.State.Waiting != nil:
			if t := cs.LastTerminationState.Terminated; t != nil {
				c.cur = m.adoptInstance(c, cs, t)
			}
			if cs.State.Waiting.Reason != ReasonContainerCreating && cs.State.Waiting.Reason != ReasonPodInitializing {
				c.waiting = cs.State.Waiting.DeepCopy()
			}
		}
		if c.cur != nil {
			c.attempts = c.restartCount + 1
		}
		m.adoptLogs(c)
	}
	switch {
	case st.Phase == corev1.PodSucceeded || st.Phase == corev1.PodFailed:
		m.terminated = true
		m.sandboxEver = st.PodIP != ""
		m.podIP = st.PodIP
	case st.PodIP != "":
		if m.rt.ipam.reserve(st.PodIP, m.pod.UID) {
			m.sandboxUp, m.sandboxEver, m.podIP = true, true, st.PodIP
		}
	}
	m.last = st.DeepCopy()
}

// adoptInstance makes an instance from a container status; t, if set, is
// the terminated state it describes.
func (m *podMachine) adoptInstance(c *container, cs *corev1.ContainerStatus, t *corev1.ContainerStateTerminated) *instance {
	id := cs.ContainerID
	i := &instance{image: parseImage(cs.Image), imageID: cs.ImageID}
	if t != nil {
		if t.ContainerID != "" {
			id = t.ContainerID
		}
		i.started, i.finished = t.StartedAt.Time, t.FinishedAt.Time
		if i.finished.IsZero() {
			i.finished = i.started
		}
		i.exitCode, i.reason, i.message = t.ExitCode, t.Reason, t.Message
	}
	i.id = strings.TrimPrefix(id, runtimeScheme)
	if cs.Image != "" && cs.ImageID != "" {
		m.rt.adoptImage(cs.Image)
	}
	return i
}

// setPod gives the machine the pod's latest version. Changes to the spec
// are not acted on (the kubelet would restart changed containers); a
// deletion is, and a shorter grace period while stopping too.
func (m *podMachine) setPod(pod *corev1.Pod, now time.Time) {
	m.pod = pod
	if !m.killing {
		return
	}
	grace := m.gracePeriod()
	for _, c := range m.containers() {
		if i := c.cur; i != nil && i.running() && !i.stopBegin.IsZero() {
			if deadline := i.stopBegin.Add(grace); deadline.Before(i.stopAt) {
				i.stopAt, i.stopCode = maxTime(deadline, now), 137
			}
		}
	}
}

// gracePeriod is the simulated time the containers get to stop.
func (m *podMachine) gracePeriod() time.Duration {
	secs := int64(corev1.DefaultTerminationGracePeriodSeconds)
	switch {
	case m.pod.DeletionGracePeriodSeconds != nil:
		secs = *m.pod.DeletionGracePeriodSeconds
	case m.pod.Spec.TerminationGracePeriodSeconds != nil:
		secs = *m.pod.Spec.TerminationGracePeriodSeconds
	}
	return m.scale.delay(time.Duration(secs) * time.Second)
}

// step advances the machine by at most one transition at now. It returns
// what the transition produced and when the machine next needs a step:
// at or before now means at once (after the caller has reported the
// status), zero means only when the pod changes.
func (m *podMachine) step(now time.Time) ([]output, time.Time) {
	if out := m.exitDue(now); out != nil {
		return out, now
	}
	if out, acted := m.exceedDeadline(now); acted {
		return out, now
	}
	deleting := (m.pod.DeletionTimestamp != nil || m.deadlineExceeded) && !m.terminated
	if m.op != nil && !deleting {
		if now.Before(m.op.until) {
			return nil, m.wake(now)
		}
		return m.complete(now), now
	}
	if m.terminated {
		return nil, m.wake(now)
	}
	var out []output
	var acted bool
	if deleting {
		out, acted = m.terminate(now)
	} else {
		out, acted = m.sync(now)
	}
	if acted {
		return out, now
	}
	return nil, m.wake(now)
}

// wake is when something is next due after now.
func (m *podMachine) wake(now time.Time) time.Time {
	var w time.Time
	add := func(t time.Time) {
		if !t.IsZero() && t.After(now) && (w.IsZero() || t.Before(w)) {
			w = t
		}
	}
	if m.op != nil {
		add(m.op.until)
	}
	add(m.sandboxWait)
	add(m.mounts.retryAt)
	if !m.terminated && !m.killing {
		add(m.activeDeadline())
	}
	for _, c := range m.containers() {
		if i := c.cur; i != nil && i.running() {
			add(i.exitAt)
			add(i.readyAt)
			add(i.stopAt)
		}
		if !m.terminated && !m.killing {
			add(c.pullRetryAt)
			add(c.restartAt)
			add(c.configRetryAt)
		}
	}
	return w
}

// sync decides the pod's next runtime action, as the kubelet's SyncPod:
// the sandbox, then the init containers one after another, then the app
// containers in order (one waiting on a back-off does not hold up the
// others), restarting exited containers as the restart policy says.
func (m *podMachine) sync(now time.Time) ([]output, bool) {
	if !m.sandboxUp {
		if out, ready := m.setUpVolumes(now); !ready {
			return out, len(out) > 0
		}
		return m.createSandbox(now)
	}
	if phase := m.phase(m.initStatuses(now), m.appStatuses(now), false); phase == corev1.PodSucceeded || phase == corev1.PodFailed {
		m.stopSandbox()
		m.terminated = true
		return nil, true
	}
	for _, c := range m.init {
		switch {
		case c.succeeded():
			continue
		case c.cur != nil && c.cur.running():
			return nil, false
		case c.cur != nil && c.cur.exited():
			if !m.shouldRestart(c) {
				return nil, false
			}
			return m.restart(c, now)
		}
		return m.startAttempt(c, now)
	}
	for _, c := range m.app {
		var out []output
		var acted bool
		switch {
		case c.cur != nil && c.cur.running():
			continue
		case c.cur != nil && c.cur.exited():
			if !m.shouldRestart(c) {
				continue
			}
			out, acted = m.restart(c, now)
		default:
			out, acted = m.startAttempt(c, now)
		}
		if acted {
			return out, true
		}
	}
	return nil, false
}

// restartable reports whether the kubelet restarts c after it exited
// with code: the container's restartPolicy if set, else the pod's (init
// containers restart only after a failure).
func (m *podMachine) restartable(c *container, code int32) bool {
	if c.init && code == 0 {
		return false
	}
	policy := corev1.RestartPolicy("")
	if c.spec.RestartPolicy != nil && !c.init {
		policy = corev1.RestartPolicy(*c.spec.RestartPolicy)
	}
	if policy == "" {
		policy = m.pod.Spec.RestartPolicy
	}
	switch policy {
	case corev1.RestartPolicyNever:
		return false
	case corev1.RestartPolicyOnFailure:
		return code != 0
	}
	return true
}

func (m *podMachine) shouldRestart(c *container) bool {
	return c.cur != nil && c.cur.exited() && m.restartable(c, c.cur.exitCode)
}

// restart restarts an exited container, unless it is backing off
// (CrashLoopBackOff): the first restart is at once, then after 10s,
// 20s... up to 5 min, all divided by speed.
func (m *podMachine) restart(c *container, now time.Time) ([]output, bool) {
	key := string(m.pod.UID) + "/" + c.spec.Name
	fin := c.cur.finished
	if m.crash.inBackOffSince(key, fin, now) {
		d := m.crash.get(key)
		c.restartAt = fin.Add(d)
		if c.announced == c.cur {
			return nil, false
		}
		c.announced = c.cur
		c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonCrashLoopBackOff, Message: msgCrashLoopBackOff(d, c.spec.Name, m.pod)}
		return []output{{c: c, eventType: corev1.EventTypeWarning, reason: ReasonBackOff, message: msgBackOffRestarting(c.spec.Name, m.pod),
			action:  &flow.RuntimeAction{Action: ActionStart, Container: c.spec.Name, Image: c.spec.Image, Result: ReasonCrashLoopBackOff},
			summary: fmt.Sprintf("back-off %v restarting failed container %s", d, c.spec.Name)}}, true
	}
	c.restartAt = time.Time{}
	if c.restartedFor != c.cur {
		m.crash.next(key, fin, now)
		c.restartedFor = c.cur
	}
	return m.startAttempt(c, now)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// adoptLogs makes again the logs of the instances of c a kubelet restart
// adopted, and when a running one exits: the fake runtime's log is a
// function of the container and its start time (and of the Services its
// network programs reach, looked up again), so it is the same log.
func (m *podMachine) adoptLogs(c *container) {
	for _, i := range []*instance{c.prev, c.cur} {
		if i == nil || i.started.IsZero() {
			continue
		}
		if !i.exited() {
			m.startPlan(c, i, i.started)
			continue
		}
		p := m.planFor(c, i.started)
		l := newContainerLog(i.id, m.pod, c, i.started, m.scale, p.run)
		last := ""
		if p.byAnnotation && !c.init && i.exitCode == p.code {
			last = exitLine(c)
		}
		l.exit(i.finished, last)
		m.rt.logs.add(m.pod.UID, l)
	}
}
