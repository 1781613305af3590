package kubelet

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/flow"
)

// Runtime actions, as flow.RuntimeAction.Action.
const (
	ActionPull   = "pull"
	ActionCreate = "create"
	ActionStart  = "start"
	ActionKill   = "kill"
	ActionExit   = "exit"
)

// Results of runtime actions besides "exit code N".
const (
	ResultOK             = "ok"
	ResultAlreadyPresent = "already present"
)

// instance is one container the fake runtime created: a container of the
// pod spec gets a new instance each time it is (re)started.
type instance struct {
	id       string
	image    imageName
	imageID  string
	started  time.Time // zero: created, not started
	finished time.Time // zero: not exited
	exitCode int32
	reason   string
	message  string

	exitAt    time.Time // when it exits on its own; zero: never
	readyAt   time.Time // when it becomes ready
	stopBegin time.Time // when it was asked to stop; zero: not asked
	stopAt    time.Time // when it exits after being asked to stop
	stopCode  int32
}

func (i *instance) running() bool { return !i.started.IsZero() && i.finished.IsZero() }
func (i *instance) exited() bool  { return !i.finished.IsZero() }

func (i *instance) terminated() *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{
		ExitCode:    i.exitCode,
		Reason:      i.reason,
		Message:     i.message,
		StartedAt:   rfc3339(i.started),
		FinishedAt:  rfc3339(i.finished),
		ContainerID: runtimeScheme + i.id,
	}
}

// runtimeScheme prefixes container IDs in status.
const runtimeScheme = "kubesim://"

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
	restartedFor  *instance // the exited instance the crash back-off counted
	restartAt     time.Time // end of the crash back-off under way
	announced     *instance // the exited instance whose back-off was announced
}

func (c *container) succeeded() bool {
	return c.cur != nil && c.cur.exited() && c.cur.exitCode == 0
}

// opKind is the kind of runtime operation under way.
type opKind int

const (
	opPull opKind = iota + 1
	opCreate
	opStart
)

// operation is the runtime operation under way: the pod's containers are
// pulled, created and started one step at a time, in order, as the
// kubelet's SyncPod does.
type operation struct {
	kind  opKind
	c     *container
	begin time.Time
	until time.Time
	job   *pullJob
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
// is not safe for concurrent use (its pod worker owns it).
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

	killing    bool // the pod is being deleted; its containers are stopping
	terminated bool // nothing will run any more; the sandbox is stopped
	// killReported: the status at the start of the kill was computed;
	// the next one is the final status, as the kubelet's
	// SyncTerminatingPod reports no status while it stops containers.
	killReported bool

	last *corev1.PodStatus // the status last computed (the status manager's cache)
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
			if c.b.exits {
				i.exitAt = i.started.Add(m.scale.delay(c.b.exitAfter))
			}
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
	deleting := m.pod.DeletionTimestamp != nil && !m.terminated
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
	for _, c := range m.containers() {
		if i := c.cur; i != nil && i.running() {
			add(i.exitAt)
			add(i.readyAt)
			add(i.stopAt)
		}
		if !m.terminated && !m.killing {
			add(c.pullRetryAt)
			add(c.restartAt)
		}
	}
	return w
}

// exitDue lets the first container whose time has come exit.
func (m *podMachine) exitDue(now time.Time) []output {
	var first *container
	var at time.Time
	for _, c := range m.containers() {
		i := c.cur
		if i == nil || !i.running() {
			continue
		}
		for _, t := range []time.Time{i.exitAt, i.stopAt} {
			if !t.IsZero() && !t.After(now) && (first == nil || t.Before(at)) {
				first, at = c, t
			}
		}
	}
	if first == nil {
		return nil
	}
	i := first.cur
	i.finished = at
	if !i.stopAt.IsZero() && !i.stopAt.After(at) {
		i.exitCode = i.stopCode
	} else {
		i.exitCode = first.b.exitCode
	}
	i.reason = ReasonCompleted
	if i.exitCode != 0 {
		i.reason = ReasonError
	}
	m.logExit(first, i)
	result := fmt.Sprintf("exit code %d", i.exitCode)
	if !i.stopBegin.IsZero() {
		d := at.Sub(i.stopBegin)
		return []output{{c: first, action: &flow.RuntimeAction{Action: ActionKill, Container: first.spec.Name, Image: first.spec.Image, Duration: d, Result: result},
			summary: fmt.Sprintf("container %s stopped in %v with exit code %d", first.spec.Name, d, i.exitCode)}}
	}
	d := at.Sub(i.started)
	return []output{{c: first, action: &flow.RuntimeAction{Action: ActionExit, Container: first.spec.Name, Image: first.spec.Image, Duration: d, Result: result},
		summary: fmt.Sprintf("container %s exited with code %d after %v", first.spec.Name, i.exitCode, d)}}
}

// sync decides the pod's next runtime action, as the kubelet's SyncPod:
// the sandbox, then the init containers one after another, then the app
// containers in order (one waiting on a back-off does not hold up the
// others), restarting exited containers as the restart policy says.
func (m *podMachine) sync(now time.Time) ([]output, bool) {
	if !m.sandboxUp {
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

func (m *podMachine) createSandbox(now time.Time) ([]output, bool) {
	if now.Before(m.sandboxWait) {
		return nil, false
	}
	ip, err := m.rt.ipam.allocate(m.pod.UID)
	if err != nil {
		first := m.sandboxErr == ""
		m.sandboxErr = err.Error()
		m.sandboxWait = now.Add(m.scale.backOff(ImagePullBackOffInitial))
		if !first {
			return nil, false
		}
		return []output{{eventType: corev1.EventTypeWarning, reason: "FailedCreatePodSandBox",
			message: fmt.Sprintf("Failed to create pod sandbox: %v", err)}}, true
	}
	m.sandboxErr, m.sandboxWait = "", time.Time{}
	m.sandboxUp, m.sandboxEver, m.podIP = true, true, ip
	return nil, true
}

func (m *podMachine) stopSandbox() {
	if m.sandboxUp {
		m.rt.ipam.release(m.podIP, m.pod.UID)
		m.sandboxUp = false
	}
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

// pullPolicy is c's imagePullPolicy, defaulted as the API server does.
func pullPolicy(c *corev1.Container) corev1.PullPolicy {
	if c.ImagePullPolicy != "" {
		return c.ImagePullPolicy
	}
	if n := parseImage(c.Image); n.digest == "" && n.tag == "latest" {
		return corev1.PullAlways
	}
	return corev1.PullIfNotPresent
}

// startAttempt begins starting c: it makes sure the node has the image
// (pulling it, or backing off after a failed pull) and then creates it.
func (m *podMachine) startAttempt(c *container, now time.Time) ([]output, bool) {
	first := c.cur == nil
	name := parseImage(c.spec.Image)
	policy := pullPolicy(&c.spec)
	img, present := m.rt.image(name, now)
	if present && policy != corev1.PullAlways {
		out := []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonPulled, message: msgAlreadyPresent(c.spec.Image),
			action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Result: ResultAlreadyPresent},
			summary: fmt.Sprintf("image %s already present on %s", c.spec.Image, m.node), start: first}}
		return append(out, m.beginCreate(c, img, now)...), true
	}
	if !present && policy == corev1.PullNever {
		if c.neverPull {
			return nil, false
		}
		c.neverPull = true
		msg := msgNeverPull(c.spec.Image)
		c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonErrImageNeverPull, Message: msg}
		return []output{
			{c: c, eventType: corev1.EventTypeWarning, reason: ReasonErrImageNeverPull, message: msg,
				action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Result: ReasonErrImageNeverPull},
				summary: fmt.Sprintf("image %s is not on %s and may not be pulled", c.spec.Image, m.node), start: first},
			{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgError(ReasonErrImageNeverPull)},
		}, true
	}
	key := string(m.pod.UID) + "_" + c.spec.Image
	if in, until := m.pulls.inBackOffSinceUpdate(key, now); in {
		c.pullRetryAt = until
		if c.pullAnnounced.Equal(until) {
			return nil, false
		}
		c.pullAnnounced = until
		msg := msgBackOffPulling(c.spec.Image)
		c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonImagePullBackOff, Message: msg + ": " + c.lastPullErr}
		return []output{
			{c: c, eventType: corev1.EventTypeNormal, reason: ReasonBackOff, message: msg,
				action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Result: ReasonImagePullBackOff},
				summary: fmt.Sprintf("back-off %v pulling image %s", m.pulls.get(key), c.spec.Image), start: first},
			{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgError(ReasonImagePullBackOff)},
		}, true
	}
	c.pullRetryAt = time.Time{}
	d := m.scale.delay(m.base.ImagePull)
	if present || !name.exists() {
		d = m.scale.delay(m.base.ImagePull / 4)
	}
	job := m.rt.pull(name, now, d, !name.exists())
	m.op = &operation{kind: opPull, c: c, begin: now, until: maxTime(job.done, now), job: job}
	return []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonPulling, message: msgPulling(c.spec.Image)}}, true
}

func (m *podMachine) beginCreate(c *container, img image, now time.Time) []output {
	c.created = &instance{image: img.name, imageID: img.id}
	m.op = &operation{kind: opCreate, c: c, begin: now, until: now.Add(m.scale.delay(m.base.ContainerCreate))}
	return nil
}

// complete finishes the operation under way, and begins the next step of
// the same container's start.
func (m *podMachine) complete(now time.Time) []output {
	op := m.op
	m.op = nil
	c := op.c
	first := c.cur == nil // before the start replaces it
	// The simulated duration: a step may run a little after its time.
	d := op.until.Sub(op.begin)
	switch op.kind {
	case opPull:
		m.rt.finish(op.job)
		if op.job.fail {
			msg := op.job.name.pullError()
			c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonErrImagePull, Message: msg}
			c.lastPullErr = ReasonErrImagePull + ": " + msg
			m.pulls.next(string(m.pod.UID)+"_"+c.spec.Image, now, now)
			return []output{
				{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgFailedToPull(c.spec.Image, msg),
					action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Duration: d, Result: ReasonErrImagePull},
					summary: fmt.Sprintf("pulling image %s failed: not found", c.spec.Image), start: first},
				{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgError(ReasonErrImagePull)},
			}
		}
		img := image{name: op.job.name, id: op.job.name.id(), size: op.job.name.size()}
		out := []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonPulled, message: msgPulled(c.spec.Image, d, d, img.size),
			action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Duration: d, Result: ResultOK},
			summary: fmt.Sprintf("pulled image %s in %v (%d bytes)", c.spec.Image, d, img.size), start: first}}
		return append(out, m.beginCreate(c, img, now)...)
	case opCreate:
		c.created.id = containerID(m.node, m.pod.UID, c.spec.Name, c.attempts)
		c.attempts++
		m.op = &operation{kind: opStart, c: c, begin: now, until: now.Add(m.scale.delay(m.base.ContainerStart))}
		return []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonCreated, message: msgCreated,
			action:  &flow.RuntimeAction{Action: ActionCreate, Container: c.spec.Name, Image: c.spec.Image, Duration: d, Result: ResultOK},
			summary: fmt.Sprintf("created container %s (%s)", c.spec.Name, shortID(c.created.id)), start: first}}
	case opStart:
		i := c.created
		c.created = nil
		if c.cur != nil {
			c.prev = c.cur
			c.restartCount++
		}
		c.cur = i
		i.started = now
		m.rt.logs.add(m.pod.UID, newContainerLog(i.id, m.pod, c, now, m.scale))
		if c.b.exits {
			i.exitAt = now.Add(m.scale.delay(c.b.exitAfter))
		}
		i.readyAt = now.Add(m.scale.delay(c.b.readyAfter))
		c.waiting = nil
		return []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonStarted, message: msgStarted,
			action:  &flow.RuntimeAction{Action: ActionStart, Container: c.spec.Name, Image: c.spec.Image, Duration: d, Result: ResultOK},
			summary: fmt.Sprintf("started container %s", c.spec.Name), start: first}}
	}
	return nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// cancel drops the operation under way (a pull goes on in the runtime).
func (m *podMachine) cancel() {
	if m.op != nil && m.op.c != nil {
		m.op.c.created = nil
	}
	m.op = nil
}

// terminate stops the pod's containers after it was deleted: each gets
// SIGTERM (a Killing event) and exits when it is done (stop-after), or
// is killed at the end of the grace period with 137. Then the sandbox
// goes.
func (m *podMachine) terminate(now time.Time) ([]output, bool) {
	if !m.killing {
		m.killing = true
		m.cancel()
		return m.stopAll(now, m.gracePeriod()), true
	}
	for _, c := range m.containers() {
		if c.cur != nil && c.cur.running() {
			return nil, false
		}
	}
	m.stopSandbox()
	m.terminated = true
	return nil, true
}

// stopAll asks every running container to stop, giving it grace.
func (m *podMachine) stopAll(now time.Time, grace time.Duration) []output {
	var out []output
	for _, c := range m.containers() {
		i := c.cur
		if i == nil || !i.running() || !i.stopBegin.IsZero() {
			continue
		}
		i.stopBegin = now
		if stop := m.scale.delay(c.b.stopAfter); stop <= grace {
			i.stopAt, i.stopCode = now.Add(stop), 0
		} else {
			i.stopAt, i.stopCode = now.Add(grace), 137
		}
		out = append(out, output{c: c, eventType: corev1.EventTypeNormal, reason: ReasonKilling, message: msgKilling(c.spec.Name)})
	}
	return out
}

// remove is for a pod that is gone from the API (deleted with no grace
// period): its containers are killed at once and its sandbox goes.
func (m *podMachine) remove(now time.Time) []output {
	m.cancel()
	m.killing = true
	out := m.stopAll(now, 0)
	for {
		o := m.exitDue(now)
		if o == nil {
			break
		}
		out = append(out, o...)
	}
	m.stopSandbox()
	m.terminated = true
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// logExit ends the log of instance i of c as it exits: one that exits on
// its own (kubesim.io/exit-after) writes kubesim's exit line last.
func (m *podMachine) logExit(c *container, i *instance) {
	l := m.rt.logs.get(i.id)
	if l == nil {
		return
	}
	last := ""
	if i.stopBegin.IsZero() && c.b.exits && !c.init {
		last = exitLine(c)
	}
	l.exit(i.finished, last)
}

// adoptLogs makes again the logs of the instances of c a kubelet restart
// adopted: the fake runtime's log is a function of the container and its
// start time, so it is the same log.
func (m *podMachine) adoptLogs(c *container) {
	for _, i := range []*instance{c.prev, c.cur} {
		if i == nil || i.started.IsZero() {
			continue
		}
		l := newContainerLog(i.id, m.pod, c, i.started, m.scale)
		if i.exited() {
			last := ""
			if c.b.exits && !c.init && i.exitCode == c.b.exitCode {
				last = exitLine(c)
			}
			l.exit(i.finished, last)
		}
		m.rt.logs.add(m.pod.UID, l)
	}
}
