package printers

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// podColumns are the columns of `kubectl get pods`; the priority-1 ones
// appear with -o wide.
var podColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Ready", Type: "string", Description: "The aggregate readiness state of this pod for accepting traffic."},
	{Name: "Status", Type: "string", Description: "The aggregate status of the containers in this pod."},
	{Name: "Restarts", Type: "string", Description: "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
	{Name: "IP", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["podIP"]},
	{Name: "Node", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["nodeName"]},
	{Name: "Nominated Node", Type: "string", Priority: 1, Description: corev1.PodStatus{}.SwaggerDoc()["nominatedNodeName"]},
	{Name: "Readiness Gates", Type: "string", Priority: 1, Description: corev1.PodSpec{}.SwaggerDoc()["readinessGates"]},
}

// Reasons with a special meaning for the STATUS cell.
const (
	// reasonPodInitializing is the waiting reason of an init container that
	// has not started yet; it does not replace the "Init:N/M" progress.
	reasonPodInitializing = "PodInitializing"
	// reasonCompleted is the terminated reason of a container that exited 0.
	reasonCompleted = "Completed"
	// reasonNodeLost is the pod reason the node lifecycle controller sets on
	// pods of an unreachable node.
	reasonNodeLost = "NodeLost"
)

// pod prints one pod: NAME READY STATUS RESTARTS AGE, then IP NODE
// NOMINATED-NODE READINESS-GATES.
func (p printer) pod(pod *corev1.Pod) metav1.TableRow {
	s := summarizePod(pod)

	restarts := strconv.Itoa(s.restarts)
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts = fmt.Sprintf("%d (%s ago)", s.restarts, p.since(s.lastRestart))
	}

	row := metav1.TableRow{
		Cells: []any{
			pod.Name,
			fmt.Sprintf("%d/%d", s.ready, s.total),
			s.status,
			restarts,
			p.since(pod.CreationTimestamp.Time),
			orNone(podIP(pod)),
			orNone(pod.Spec.NodeName),
			orNone(pod.Status.NominatedNodeName),
			readinessGates(pod),
		},
		Object: runtime.RawExtension{Object: pod},
	}
	switch pod.Status.Phase {
	case corev1.PodSucceeded:
		row.Conditions = []metav1.TableRowCondition{{
			Type: metav1.RowCompleted, Status: metav1.ConditionTrue,
			Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully.",
		}}
	case corev1.PodFailed:
		row.Conditions = []metav1.TableRowCondition{{
			Type: metav1.RowCompleted, Status: metav1.ConditionTrue,
			Reason: string(corev1.PodFailed), Message: "The pod failed.",
		}}
	}
	return row
}

// podSummary is what the READY, STATUS and RESTARTS cells are made of.
type podSummary struct {
	ready, total int       // READY is "ready/total"
	status       string    // STATUS
	restarts     int       // RESTARTS
	lastRestart  time.Time // when the most recent counted restart ended; zero if unknown
}

// summarizePod derives the READY, STATUS and RESTARTS values of a pod the way
// kube-apiserver does.
//
// STATUS starts as the phase, replaced by status.reason when set and by
// SchedulingGated while scheduling gates hold the pod. Then the init
// containers are walked in order: finished ones (exit 0) and started sidecars
// (restartable init containers) are passed over, and the first other one
// decides an "Init:..." status. While the pod is still initializing, RESTARTS
// counts every init container restart. Otherwise (or once the pod reports
// Initialized=True) the regular containers are walked from last to first, so
// that the first container's state wins, and RESTARTS counts them plus the
// sidecars. A pod being deleted shows Terminating, or Unknown if its node was
// lost.
func summarizePod(pod *corev1.Pod) podSummary {
	sidecar, sidecars := sidecarsByName(pod)
	s := podSummary{total: len(pod.Spec.Containers) + sidecars, status: phaseStatus(pod)}
	in := readInitContainers(pod, sidecar)
	s.ready += in.readySidecars
	if in.initializing {
		s.status = in.status
	}
	s.restarts, s.lastRestart = in.restarts, in.lastRestart
	if !in.initializing || podInitialized(pod) {
		s.restarts, s.lastRestart = in.sidecarRestarts, in.sidecarLastRestart
		s.addContainers(pod)
	}
	if pod.DeletionTimestamp != nil {
		switch {
		case pod.Status.Reason == reasonNodeLost:
			s.status = string(corev1.PodUnknown)
		case pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed:
			s.status = "Terminating"
		}
	}
	return s
}

// phaseStatus is where a pod's STATUS starts: its phase, replaced by
// status.reason when set and by SchedulingGated while scheduling gates
// hold the pod.
func phaseStatus(pod *corev1.Pod) string {
	status := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		status = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			status = corev1.PodReasonSchedulingGated
		}
	}
	return status
}

// sidecarsByName says, by name, which of a pod's init containers are
// sidecars (container statuses are matched to the spec by name), and
// counts the sidecars, which count towards READY's total.
func sidecarsByName(pod *corev1.Pod) (sidecar map[string]bool, n int) {
	sidecar = make(map[string]bool, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		sidecar[c.Name] = isSidecar(c)
		if sidecar[c.Name] {
			n++
		}
	}
	return sidecar, n
}

// initProgress is what a pod's init container statuses say, read in order
// up to the first one the pod is waiting for.
type initProgress struct {
	// initializing: an init container holds up the pod; status is then
	// its "Init:..." STATUS.
	initializing bool
	status       string
	// readySidecars counts the started sidecars that are ready.
	readySidecars int
	// restarts and lastRestart are those of all the init containers read,
	// sidecarRestarts and sidecarLastRestart those of the sidecars.
	restarts, sidecarRestarts       int
	lastRestart, sidecarLastRestart time.Time
}

// readInitContainers walks a pod's init container statuses in order:
// finished ones (exit 0) and started sidecars are passed over, and the
// first other one is the one the pod waits for; the walk stops there.
func readInitContainers(pod *corev1.Pod, sidecar map[string]bool) initProgress {
	var in initProgress
	for i := range pod.Status.InitContainerStatuses {
		cs := &pod.Status.InitContainerStatuses[i]
		finished := lastTermination(cs)
		in.restarts += int(cs.RestartCount)
		in.lastRestart = later(in.lastRestart, finished)
		if sidecar[cs.Name] {
			in.sidecarRestarts += int(cs.RestartCount)
			in.sidecarLastRestart = later(in.sidecarLastRestart, finished)
		}

		if t := cs.State.Terminated; t != nil && t.ExitCode == 0 {
			continue // done
		}
		if sidecar[cs.Name] && cs.Started != nil && *cs.Started {
			if cs.Ready {
				in.readySidecars++
			}
			continue // a running sidecar does not hold up initialization
		}
		// This init container is the one the pod is waiting for.
		in.initializing = true
		switch w := cs.State.Waiting; {
		case cs.State.Terminated != nil:
			in.status = "Init:" + terminationReason(cs.State.Terminated)
		case w != nil && w.Reason != "" && w.Reason != reasonPodInitializing:
			in.status = "Init:" + w.Reason
		default:
			in.status = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		break
	}
	return in
}

// addContainers adds a pod's regular containers to s: walked from last to
// first, so that the first container's state decides STATUS, each adds its
// restarts, and a ready running one counts as ready. A container that
// completed does not hide others that still run or that failed.
func (s *podSummary) addContainers(pod *corev1.Pod) {
	running := false
	failure := "" // the reason of a container that exited non-zero
	for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
		cs := &pod.Status.ContainerStatuses[i]
		s.restarts += int(cs.RestartCount)
		s.lastRestart = later(s.lastRestart, lastTermination(cs))

		switch {
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
			s.status = cs.State.Waiting.Reason
		case cs.State.Terminated != nil:
			s.status = terminationReason(cs.State.Terminated)
			if cs.State.Terminated.ExitCode != 0 {
				failure = s.status
			}
		case cs.Ready && cs.State.Running != nil:
			running = true
			s.ready++
		}
	}
	if s.status == reasonCompleted {
		switch {
		case running && podReady(pod):
			s.status = string(corev1.PodRunning)
		case failure != "":
			s.status = failure
		case running:
			s.status = "NotReady"
		}
	}
}

// isSidecar reports whether an init container is a restartable one, which
// keeps running beside the regular containers.
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// terminationReason names how a container ended: its reason, else the
// signal, else the exit code.
func terminationReason(t *corev1.ContainerStateTerminated) string {
	switch {
	case t.Reason != "":
		return t.Reason
	case t.Signal != 0:
		return fmt.Sprintf("Signal:%d", t.Signal)
	default:
		return fmt.Sprintf("ExitCode:%d", t.ExitCode)
	}
}

// lastTermination is when the container's previous run ended, or zero.
func lastTermination(cs *corev1.ContainerStatus) time.Time {
	if t := cs.LastTerminationState.Terminated; t != nil {
		return t.FinishedAt.Time
	}
	return time.Time{}
}

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// podInitialized reports whether the pod's Initialized condition is True.
func podInitialized(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodInitialized {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podReady reports whether the pod has a Ready condition that is True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// podIP is the pod's primary IP. kube-apiserver's defaulting keeps podIP and
// podIPs[0] equal, with podIP winning a disagreement, so podIP comes first.
func podIP(pod *corev1.Pod) string {
	if pod.Status.PodIP != "" {
		return pod.Status.PodIP
	}
	if len(pod.Status.PodIPs) > 0 {
		return pod.Status.PodIPs[0].IP
	}
	return ""
}

// readinessGates renders the READINESS GATES cell: "<none>" without gates,
// else "true/total", where a gate is true if the first pod condition of its
// type is True.
func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	passed := 0
	for _, g := range pod.Spec.ReadinessGates {
		for _, c := range pod.Status.Conditions {
			if c.Type == g.ConditionType {
				if c.Status == corev1.ConditionTrue {
					passed++
				}
				break
			}
		}
	}
	return fmt.Sprintf("%d/%d", passed, len(pod.Spec.ReadinessGates))
}

// orNone returns s, or "<none>" if s is empty.
func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

// Pods prints pods.
var Pods = tableHandler(podColumns, printer.pod)
