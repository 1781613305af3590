package kubelet

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// AnnotationLog holds lines a container writes to its log, one per line
// of the value, after the lines of its image:
//
//	hello                 written as the container starts
//	+5s migration done    written 5s after it started
//	every 2s tick {n}     written every 2s; {n} counts 1, 2, 3...
//
// With ".<container>" appended it is for that container only (init
// containers too), as the other annotations. Durations are divided by
// the kubelet's speed; at speed 0 timed lines are written at the start
// and repeated lines once.
const AnnotationLog = "kubesim.io/log"

// maxRepeats bounds how many times one "every" line is written.
const maxRepeats = 10000

// logLine is one line of a container's log and when it was written.
type logLine struct {
	at   time.Time
	text string
}

// repeatLine is an "every" line of AnnotationLog.
type repeatLine struct {
	period time.Duration // scaled, > 0
	text   string
}

// containerLog is the log of one container instance (one ID), made up by
// the fake runtime: the lines are fixed when the container starts, each
// with the time it is written, and appear as the clock passes those
// times, until the container exits. Safe for concurrent use.
type containerLog struct {
	id     string
	start  time.Time
	once   []logLine // sorted by time
	repeat []repeatLine

	mu    sync.Mutex
	end   time.Time // zero while the container runs
	last  *logLine  // the line written as it exited, if any
	ended chan struct{}
}

// newContainerLog makes the log of instance id of container c of pod,
// started at start, whose command line did run: what the command line
// wrote; or, without one, kubesim's note that no process runs and the
// image's start lines. Then the lines of AnnotationLog.
func newContainerLog(id string, pod *corev1.Pod, c *container, start time.Time, scale scaler, run commandRun) *containerLog {
	l := &containerLog{id: id, start: start, ended: make(chan struct{})}
	if run.simulated {
		for _, rl := range run.lines {
			l.add(scale.delay(rl.at), rl.text)
		}
	} else {
		img := parseImage(c.spec.Image)
		l.add(0, fmt.Sprintf("kubesim: container %s (image %s) is simulated: no process runs; its log is made up by kubesim's fake runtime", c.spec.Name, img))
		for _, il := range startLines(img) {
			at := start.Add(scale.delay(il.at))
			l.once = append(l.once, logLine{at: at, text: il.text(at)})
		}
	}
	for _, line := range strings.Split(annotationFor(pod, c, AnnotationLog), "\n") {
		l.addAnnotationLine(strings.TrimRight(line, "\r"), scale)
	}
	sort.SliceStable(l.once, func(i, j int) bool { return l.once[i].at.Before(l.once[j].at) })
	return l
}

// annotationFor is the value of key for c: key.<container> if set, else
// key for an app container.
func annotationFor(pod *corev1.Pod, c *container, key string) string {
	if v, ok := pod.Annotations[key+"."+c.spec.Name]; ok {
		return v
	}
	if c.init {
		return ""
	}
	return pod.Annotations[key]
}

func (l *containerLog) add(after time.Duration, text string) {
	l.once = append(l.once, logLine{at: l.start.Add(after), text: text})
}

// addAnnotationLine reads one line of AnnotationLog. A "+<d>" or
// "every <d>" whose duration does not parse is written as it is.
func (l *containerLog) addAnnotationLine(line string, scale scaler) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if rest, ok := strings.CutPrefix(line, "+"); ok {
		if d, text, ok := cutDuration(rest); ok {
			l.add(scale.delay(d), text)
			return
		}
	}
	if rest, ok := strings.CutPrefix(line, "every "); ok {
		if d, text, ok := cutDuration(rest); ok && d > 0 {
			if p := scale.delay(d); p > 0 {
				l.repeat = append(l.repeat, repeatLine{period: p, text: text})
			} else {
				l.add(0, strings.ReplaceAll(text, "{n}", "1"))
			}
			return
		}
	}
	l.add(0, line)
}

// cutDuration splits "5s rest" into 5s and "rest".
func cutDuration(s string) (time.Duration, string, bool) {
	word, text, _ := strings.Cut(s, " ")
	d, err := parseDuration(word)
	return d, text, err == nil
}

// exit records that the container exited at t, writing line last (if not
// empty). Only the first call counts.
func (l *containerLog) exit(t time.Time, last string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.end.IsZero() {
		return
	}
	if t.Before(l.start) {
		t = l.start
	}
	l.end = t
	if last != "" {
		l.last = &logLine{at: t, text: last}
	}
	close(l.ended)
}

// state returns when the container exited (zero: it runs) and the channel
// closed when it does.
func (l *containerLog) state() (time.Time, <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.end, l.ended
}

// lines returns the lines written up to now, in order.
func (l *containerLog) lines(now time.Time) []logLine {
	end, _ := l.state()
	limit := now
	if !end.IsZero() && end.Before(limit) {
		limit = end
	}
	var out []logLine
	for _, ln := range l.once {
		if !ln.at.After(limit) {
			out = append(out, ln)
		}
	}
	for _, r := range l.repeat {
		for n := 1; n <= maxRepeats; n++ {
			at := l.start.Add(time.Duration(n) * r.period)
			if at.After(limit) {
				break
			}
			out = append(out, logLine{at: at, text: strings.ReplaceAll(r.text, "{n}", strconv.Itoa(n))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	l.mu.Lock()
	if l.last != nil && !l.last.at.After(now) {
		out = append(out, *l.last)
	}
	l.mu.Unlock()
	return out
}

// next is when the next line after now is written; zero if no line is
// due before the container exits.
func (l *containerLog) next(now time.Time) time.Time {
	end, _ := l.state()
	var w time.Time
	consider := func(t time.Time) {
		if t.After(now) && (end.IsZero() || !t.After(end)) && (w.IsZero() || t.Before(w)) {
			w = t
		}
	}
	for _, ln := range l.once {
		consider(ln.at)
	}
	for _, r := range l.repeat {
		n := now.Sub(l.start)/r.period + 1
		if n <= maxRepeats {
			consider(l.start.Add(n * r.period))
		}
	}
	return w
}

// logStore holds the logs of a node's containers by container ID, as the
// runtime keeps a log file per container: the current instance's and the
// ones before it, until the pod is gone. Safe for concurrent use.
type logStore struct {
	mu    sync.Mutex
	byID  map[string]*containerLog
	byPod map[types.UID][]string
}

func newLogStore() *logStore {
	return &logStore{byID: map[string]*containerLog{}, byPod: map[types.UID][]string{}}
}

// add keeps l as the log of container l.id of pod.
func (s *logStore) add(pod types.UID, l *containerLog) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.byID[l.id]; !ok {
		s.byPod[pod] = append(s.byPod[pod], l.id)
	}
	s.byID[l.id] = l
}

// get returns the log of container id, nil if there is none.
func (s *logStore) get(id string) *containerLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byID[id]
}

// forget drops the logs of pod's containers (the pod is gone).
func (s *logStore) forget(pod types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range s.byPod[pod] {
		delete(s.byID, id)
	}
	delete(s.byPod, pod)
}

// exitLine is what a container that exits on its own (kubesim.io/exit-
// after) writes last: kubesim's note of why, since no program wrote it.
func exitLine(c *container) string {
	return fmt.Sprintf("kubesim: container %s exits with code %d, as %s=%v says", c.spec.Name, c.b.exitCode, AnnotationExitAfter, c.b.exitAfter)
}
