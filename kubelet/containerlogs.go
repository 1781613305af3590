package kubelet

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/podlog"
)

// serveContainerLogs serves GET /containerLogs/<namespace>/<pod>/<container>
// as the kubelet does: the options from the query (tail= is the old name
// of tailLines), the pod and container from what the kubelet knows, the
// container instance from the pod's status (the current one, or with
// previous=true the last terminated one), then its log, streamed while
// the container runs when follow=true.
func (k *Kubelet) serveContainerLogs(w http.ResponseWriter, r *http.Request) {
	ns, name, cname := r.PathValue("namespace"), r.PathValue("pod"), r.PathValue("container")
	q := r.URL.Query()
	if tail := q.Get("tail"); tail != "" {
		q.Set("tailLines", tail)
		if tail == "all" {
			q.Del("tailLines")
		}
	}
	opts, err := podlog.ParseOptions(q)
	if err != nil {
		writeText(w, http.StatusBadRequest, `{"message": "Unable to decode query."}`)
		return
	}
	if errs := podlog.Validate(opts); len(errs) > 0 {
		writeText(w, http.StatusUnprocessableEntity, `{"message": "Invalid request."}`)
		return
	}
	pod, ok := k.podByName(ns, name)
	if !ok {
		writeText(w, http.StatusNotFound, fmt.Sprintf("pod %q does not exist", name))
		return
	}
	if !hasContainer(pod, cname) {
		writeText(w, http.StatusNotFound, fmt.Sprintf("container %q not found in pod %q", cname, name))
		return
	}
	id, err := logContainerID(pod.Name, &pod.Status, cname, opts.Previous)
	if err != nil {
		writeText(w, http.StatusBadRequest, err.Error())
		return
	}
	l := k.rt.logs.get(id)
	if l == nil {
		writeText(w, http.StatusBadRequest, fmt.Sprintf("container %q in pod %q: no log of container %s on node %s", cname, name, shortID(id), k.cfg.Node.Name))
		return
	}
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusOK)
	flush(w) // the client sees the answer before the first line
	k.writeLog(r.Context(), w, l, opts)
}

func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// hasContainer reports whether pod has an init, app or ephemeral
// container named name.
func hasContainer(pod *corev1.Pod, name string) bool {
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.Containers {
		if c.Name == name {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if c.Name == name {
			return true
		}
	}
	return false
}

// logContainerID finds, from the pod's status, the container whose log is
// asked for, with the kubelet's errors (validateContainerLogStatus).
func logContainerID(podName string, st *corev1.PodStatus, name string, previous bool) (string, error) {
	cs, found := findStatus(st.ContainerStatuses, name)
	if !found {
		cs, found = findStatus(st.InitContainerStatuses, name)
	}
	if !found {
		cs, found = findStatus(st.EphemeralContainerStatuses, name)
	}
	if !found {
		return "", fmt.Errorf("container %q in pod %q is not available", name, podName)
	}
	last := cs.LastTerminationState.Terminated
	var id string
	switch {
	case previous:
		if last == nil || last.ContainerID == "" {
			return "", fmt.Errorf("previous terminated container %q in pod %q not found", name, podName)
		}
		id = last.ContainerID
	case cs.State.Running != nil:
		id = cs.ContainerID
	case cs.State.Terminated != nil:
		id = cs.State.Terminated.ContainerID
		if id == "" && last != nil {
			id = last.ContainerID
		}
		if id == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", name, podName)
		}
	case last != nil:
		if last.ContainerID == "" {
			return "", fmt.Errorf("container %q in pod %q is terminated", name, podName)
		}
		id = last.ContainerID
	case cs.State.Waiting != nil:
		switch reason := cs.State.Waiting.Reason; reason {
		case ReasonErrImagePull:
			return "", fmt.Errorf("container %q in pod %q is waiting to start: image can't be pulled", name, podName)
		case ReasonImagePullBackOff:
			return "", fmt.Errorf("container %q in pod %q is waiting to start: trying and failing to pull image", name, podName)
		default:
			return "", fmt.Errorf("container %q in pod %q is waiting to start: %v", name, podName, reason)
		}
	default:
		return "", fmt.Errorf("container %q in pod %q is waiting to start - no logs yet", name, podName)
	}
	return strings.TrimPrefix(id, runtimeScheme), nil
}

// writeLog writes l's lines as opts say: since a time, the last tailLines,
// each with its time first when timestamps is set, at most limitBytes in
// all; with follow, then the lines written after, as they come, until the
// container exits, the limit is reached, or ctx is done.
func (k *Kubelet) writeLog(ctx context.Context, w http.ResponseWriter, l *containerLog, opts *corev1.PodLogOptions) {
	now := k.clock.Now()
	out := &logWriter{w: w, timestamps: opts.Timestamps, left: -1}
	if opts.LimitBytes != nil {
		out.left = *opts.LimitBytes
	}
	all := l.lines(now)
	first := selectLines(all, opts, now)
	if !out.write(first) || !opts.Follow {
		return
	}
	sent := len(all)
	for {
		end, ended := l.state()
		if !end.IsZero() && !now.Before(end) {
			// The exit may have come after the lines above were read:
			// its line, if it has one, is written now.
			if all = l.lines(now); len(all) > sent {
				out.write(all[sent:])
			}
			return
		}
		if !k.waitForLine(ctx, l.next(now), now, ended) {
			return
		}
		now = k.clock.Now()
		if end, _ := l.state(); !end.IsZero() && end.After(now) {
			now = end
		}
		all = l.lines(now)
		if !out.write(all[sent:]) {
			return
		}
		sent = len(all)
	}
}

// waitForLine waits until next (zero: no line is due), the container
// exits (ended), or ctx is done: then it returns false.
func (k *Kubelet) waitForLine(ctx context.Context, next, now time.Time, ended <-chan struct{}) bool {
	var timer <-chan time.Time
	if !next.IsZero() {
		t := k.clock.NewTimer(next.Sub(now))
		defer t.Stop()
		timer = t.C()
	}
	select {
	case <-ctx.Done():
		return false
	case <-ended:
	case <-timer:
	}
	return true
}

// selectLines keeps the lines written since opts' sinceTime or
// sinceSeconds before now, and of those the last tailLines.
func selectLines(lines []logLine, opts *corev1.PodLogOptions, now time.Time) []logLine {
	var since time.Time
	switch {
	case opts.SinceTime != nil:
		since = opts.SinceTime.Time
	case opts.SinceSeconds != nil:
		since = now.Add(-time.Duration(*opts.SinceSeconds) * time.Second)
	}
	if !since.IsZero() {
		i := 0
		for i < len(lines) && lines[i].at.Before(since) {
			i++
		}
		lines = lines[i:]
	}
	if opts.TailLines != nil && int64(len(lines)) > *opts.TailLines {
		lines = lines[int64(len(lines))-*opts.TailLines:]
	}
	return lines
}

// logWriter writes log lines to an HTTP response, flushing after each
// batch, and stops at its byte limit (left < 0: none), cutting the last
// line as the kubelet's limited writer does.
type logWriter struct {
	w          http.ResponseWriter
	timestamps bool
	left       int64
}

// write writes lines; false once the limit is reached or the client is
// gone.
func (lw *logWriter) write(lines []logLine) bool {
	if len(lines) == 0 {
		return lw.left != 0
	}
	var b strings.Builder
	for _, ln := range lines {
		if lw.timestamps {
			b.WriteString(ln.at.UTC().Format(podlog.TimestampFormat))
			b.WriteByte(' ')
		}
		b.WriteString(ln.text)
		b.WriteByte('\n')
	}
	s := b.String()
	full := true
	if lw.left >= 0 && int64(len(s)) >= lw.left {
		s, full = s[:lw.left], false
	}
	if lw.left > 0 {
		lw.left -= int64(len(s))
	}
	if _, err := io.WriteString(lw.w, s); err != nil {
		return false
	}
	flush(lw.w)
	return full
}
