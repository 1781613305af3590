package kubelet

import (
	"fmt"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Annotations that tell the fake runtime how a pod's containers behave.
// On their own they apply to every app container of the pod; with
// ".<container>" appended (kubesim.io/exit-after.migrate) to that one
// container, init or app, and win over the pod-wide value. Durations are
// Go durations ("5s", "1m30s") or whole seconds ("5"), and are divided by
// the kubelet's speed like every simulated delay.
const (
	// AnnotationExitAfter: the container exits that long after it
	// started. Without it an app container runs until it is stopped, and
	// an init container exits as soon as it has started.
	AnnotationExitAfter = "kubesim.io/exit-after"
	// AnnotationExitCode: the code the container exits with (default 0).
	AnnotationExitCode = "kubesim.io/exit-code"
	// AnnotationReadyAfter: the container becomes ready that long after
	// it started (default: Delays.ReadinessDefault, plus a readiness
	// probe's initialDelaySeconds).
	AnnotationReadyAfter = "kubesim.io/ready-after"
	// AnnotationReadiness: "fail" makes the container's readiness probe
	// fail from now on, "pass" (or no annotation) lets it pass again. Unlike
	// the others it is read whenever the pod changes, so that
	// `kubectl annotate pod web kubesim.io/readiness=fail` turns a running
	// pod unready (and `--overwrite ...=pass` ready) at once. A real
	// kubelet would wait for failureThreshold failed probes (3, every
	// periodSeconds, 10 s) before it says so.
	AnnotationReadiness = "kubesim.io/readiness"
	// AnnotationStopAfter: how long the container takes to exit once it
	// is asked to stop (SIGTERM), default 0. Past the grace period it is
	// killed (SIGKILL) and exits with 137.
	AnnotationStopAfter = "kubesim.io/stop-after"
)

// behaviour is how one container behaves, from the annotations, in base
// (unscaled) durations.
type behaviour struct {
	exitAfter  time.Duration // with exitSet: it exits that long after it started
	exitCode   int32
	exitSet    bool // AnnotationExitAfter is set for it
	codeSet    bool // AnnotationExitCode is set for it
	readyAfter time.Duration
	stopAfter  time.Duration
	problems   []string // annotations that could not be read
}

// containerBehaviour reads the annotations that apply to container c of
// pod (init: an init container).
func containerBehaviour(pod *corev1.Pod, c *corev1.Container, init bool, readinessDefault time.Duration) behaviour {
	b := behaviour{readyAfter: readinessDefault}
	if c.ReadinessProbe != nil {
		b.readyAfter += time.Duration(c.ReadinessProbe.InitialDelaySeconds) * time.Second
	}
	lookup := func(key string) (string, string, bool) {
		if v, ok := pod.Annotations[key+"."+c.Name]; ok {
			return key + "." + c.Name, v, true
		}
		if init {
			return "", "", false
		}
		v, ok := pod.Annotations[key]
		return key, v, ok
	}
	duration := func(key string, dst *time.Duration) bool {
		k, v, ok := lookup(key)
		if !ok {
			return false
		}
		d, err := parseDuration(v)
		if err != nil {
			b.problems = append(b.problems, fmt.Sprintf("annotation %s=%q: %v", k, v, err))
			return false
		}
		*dst = d
		return true
	}
	if duration(AnnotationExitAfter, &b.exitAfter) {
		b.exitSet = true
	}
	duration(AnnotationReadyAfter, &b.readyAfter)
	duration(AnnotationStopAfter, &b.stopAfter)
	if _, problem := readinessFails(pod, c); problem != "" && !init {
		b.problems = append(b.problems, problem)
	}
	if k, v, ok := lookup(AnnotationExitCode); ok {
		code, err := strconv.ParseInt(v, 10, 32)
		if err != nil || code < 0 || code > 255 {
			b.problems = append(b.problems, fmt.Sprintf("annotation %s=%q: want an exit code from 0 to 255", k, v))
		} else {
			b.exitCode, b.codeSet = int32(code), true
		}
	}
	return b
}

// The values of AnnotationReadiness.
const (
	ReadinessFail = "fail"
	ReadinessPass = "pass"
)

// readinessFails reports whether pod's annotations make container c's
// readiness probe fail now (the ".<container>" key wins); a value other
// than fail or pass is a problem, and passes.
func readinessFails(pod *corev1.Pod, c *corev1.Container) (bool, string) {
	k := AnnotationReadiness + "." + c.Name
	v, ok := pod.Annotations[k]
	if !ok {
		k = AnnotationReadiness
		if v, ok = pod.Annotations[k]; !ok {
			return false, ""
		}
	}
	switch v {
	case ReadinessFail:
		return true, ""
	case ReadinessPass:
		return false, ""
	}
	return false, fmt.Sprintf("annotation %s=%q: want %q or %q", k, v, ReadinessFail, ReadinessPass)
}

// parseDuration reads "5s", "1m30s" or "5" (seconds).
func parseDuration(s string) (time.Duration, error) {
	var d time.Duration
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		d = time.Duration(n) * time.Second
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("not a duration")
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration")
	}
	return d, nil
}
