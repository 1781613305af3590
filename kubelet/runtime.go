package kubelet

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
)

// This file is the fake container runtime: what it keeps for a node (its
// images and pulls are in images.go, the pod IPs in ipam.go) and the
// runtime's side of a pod's machine: the sandbox, then for each container
// its pull, create and start, each taking its simulated time; a
// container's exit; the stop of the containers when the pod is deleted
// (SIGTERM, then a kill at the end of the grace period). What to run next
// is the machine's decision (machine.go: sync, restart).

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

// runtimeScheme prefixes container IDs in status.
const runtimeScheme = "kubesim://"

// fakeRuntime is one node's fake container runtime: the images it has, the
// pulls under way, and the pod IP addresses. It is shared by the node's
// pod machines and safe for concurrent use.
type fakeRuntime struct {
	node   string
	hostIP string

	mu     sync.Mutex
	images map[string]image    // by normalized reference
	pulls  map[string]*pullJob // by normalized reference
	ipam   *ipam
	logs   *logStore // the containers' logs, by container ID
	// objects reads the ConfigMaps and Secrets of the pods' containers;
	// nil: nothing is checked. Set before the first pod.
	objects objectLookup
	// registry is the simulated registry images are pulled from.
	registry *Catalogue
	// services finds Services for the containers' network programs
	// (wget, curl, nc); nil: none is found. Set before the first pod.
	services serviceLookup
}

func newRuntime(node, hostIP, podCIDR string) (*fakeRuntime, error) {
	a, err := newIPAM(podCIDR)
	if err != nil {
		return nil, err
	}
	return &fakeRuntime{node: node, hostIP: hostIP, images: map[string]image{}, pulls: map[string]*pullJob{}, ipam: a, logs: newLogStore(), registry: DefaultCatalogue()}, nil
}

// containerID makes the ID of a container: the same node, pod, container
// and attempt always give the same ID.
func containerID(node string, pod types.UID, container string, attempt int32) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("kubesim container %s/%s/%s/%d", node, pod, container, attempt)))
	return hex.EncodeToString(sum[:])
}

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
	exitWith  int32     // the code it exits with on its own
	byAnno    bool      // it exits as kubesim.io/exit-after says
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

func (m *podMachine) createSandbox(now time.Time) ([]output, bool) {
	if now.Before(m.sandboxWait) {
		return nil, false
	}
	if m.pod.Spec.HostNetwork {
		// The node's network: the pod's IP is the node's.
		m.sandboxUp, m.sandboxEver, m.podIP = true, true, m.rt.hostIP
		return nil, true
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
		if !m.pod.Spec.HostNetwork {
			m.rt.ipam.release(m.podIP, m.pod.UID)
		}
		m.sandboxUp = false
	}
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
	if now.Before(c.configRetryAt) {
		return nil, false // CreateContainerConfigError: the next sync retries
	}
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
	found := m.rt.registry.lookup(name)
	if present || found != pullFound {
		d = m.scale.delay(m.base.ImagePull / 4)
	}
	job := m.rt.pull(name, now, d, found)
	m.op = &operation{kind: opPull, c: c, begin: now, until: maxTime(job.done, now), job: job}
	return []output{{c: c, eventType: corev1.EventTypeNormal, reason: ReasonPulling, message: msgPulling(c.spec.Image)}}, true
}

func (m *podMachine) beginCreate(c *container, img image, now time.Time) []output {
	if out, failed := m.checkConfig(c, now); failed {
		return out
	}
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
			msg := pullError(op.job.name, op.job.result)
			c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonErrImagePull, Message: msg}
			c.lastPullErr = ReasonErrImagePull + ": " + msg
			m.pulls.next(string(m.pod.UID)+"_"+c.spec.Image, now, now)
			return []output{
				{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgFailedToPull(c.spec.Image, msg),
					action:  &flow.RuntimeAction{Action: ActionPull, Container: c.spec.Name, Image: c.spec.Image, Duration: d, Result: ReasonErrImagePull},
					summary: fmt.Sprintf("pulling image %s failed: %s", c.spec.Image, op.job.result), start: first},
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
		m.startPlan(c, i, now)
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
		i.exitCode = i.exitWith
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

// logExit ends the log of instance i of c as it exits: one that exits
// as kubesim.io/exit-after says writes kubesim's exit line last.
func (m *podMachine) logExit(c *container, i *instance) {
	l := m.rt.logs.get(i.id)
	if l == nil {
		return
	}
	last := ""
	if i.stopBegin.IsZero() && i.byAnno && !c.init {
		last = exitLine(c)
	}
	l.exit(i.finished, last)
}

// startPlan plays the command line of c's instance i, started at start:
// its log, and when and how it exits.
func (m *podMachine) startPlan(c *container, i *instance, start time.Time) plan {
	p := m.planFor(c, start)
	m.rt.logs.add(m.pod.UID, newContainerLog(i.id, m.pod, c, start, m.scale, p.run))
	if p.exits {
		i.exitAt = start.Add(m.scale.delay(p.after))
	}
	i.exitWith, i.byAnno = p.code, p.byAnnotation
	return p
}
