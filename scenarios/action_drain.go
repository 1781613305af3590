package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	yaml "go.yaml.in/yaml/v3"
)

// DrainAction drains a node as kubectl drain does (k8s.io/kubectl's
// pkg/drain with the command's defaults): it cordons the node, lists
// the pods bound to it, refuses (or, with the flags, skips or takes)
// those of a DaemonSet, those with emptyDir data and those no
// controller owns, then evicts the others at once, each in its own
// goroutine: an eviction answered 429 (a disruption budget allows none
// now) is sent again after 5 s, until it is accepted or Timeout (0:
// none, the step's own timeout then bounds it) passes; an accepted one
// waits, polling every second, until the pod is gone. The transcript has
// kubectl's lines; the step's status is the last eviction's answer, and
// a drain that did not finish fails with kubectl's error as message.
// kubectl's 5 s and 1 s are its own, on the wall clock, not scaled by
// the speed.
type DrainAction struct {
	Node               string
	Timeout            time.Duration
	IgnoreDaemonSets   bool
	Force              bool
	DeleteEmptyDirData bool
}

var _ actionRunner = (*DrainAction)(nil)

// drainDoc is drain as written.
type drainDoc struct {
	Node               objectName `yaml:"node" load:"required"`
	Timeout            *duration  `yaml:"timeout"`
	IgnoreDaemonSets   *boolean   `yaml:"ignoreDaemonSets"`
	Force              *boolean   `yaml:"force"`
	DeleteEmptyDirData *boolean   `yaml:"deleteEmptyDirData"`
}

// evictRetryDelay and deletePollInterval are kubectl drain's.
const (
	evictRetryDelay    = 5 * time.Second
	deletePollInterval = time.Second
)

// Kind returns "drain".
func (a *DrainAction) Kind() string { return "drain" }

// String is the kubectl command it does.
func (a *DrainAction) String() string {
	s := "kubectl drain " + a.Node
	if a.IgnoreDaemonSets {
		s += " --ignore-daemonsets"
	}
	if a.DeleteEmptyDirData {
		s += " --delete-emptydir-data"
	}
	if a.Force {
		s += " --force"
	}
	if a.Timeout > 0 {
		s += " --timeout=" + a.Timeout.String()
	}
	return s
}

// parseDrain reads {node, timeout, ignoreDaemonSets, force,
// deleteEmptyDirData}.
func parseDrain(_ *loader, _ string, n *yaml.Node) (actionRunner, error) {
	var d drainDoc
	if err := decode(n, &d); err != nil {
		return nil, err
	}
	a := &DrainAction{Node: string(d.Node), IgnoreDaemonSets: d.IgnoreDaemonSets.or(false),
		Force: d.Force.or(false), DeleteEmptyDirData: d.DeleteEmptyDirData.or(false)}
	if d.Timeout != nil {
		a.Timeout = time.Duration(*d.Timeout)
	}
	return a, nil
}

// drainLog collects the lines of a drain's goroutines into the step's
// transcript, and the last eviction status.
type drainLog struct {
	mu     sync.Mutex
	res    *StepResult
	status int
}

func (l *drainLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	addTranscript(l.res, format, args...)
}

func (l *drainLog) answered(status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.status = status
}

// run is kubectl's RunDrain for one node, as user.
func (a *DrainAction) run(ctx context.Context, p *player, user string) (StepResult, error) {
	cs, err := p.typedClient(user)
	if err != nil {
		return StepResult{}, err
	}
	var res StepResult
	log := &drainLog{res: &res}
	if err := setUnschedulable(ctx, cs, a.Node, true, log.printf); err != nil {
		failed := resultOf(err, http.StatusOK)
		res.Status, res.Message = failed.Status, failed.Message
		return res, err
	}
	err = a.evictAll(ctx, cs, log)
	res.Status = log.status
	if res.Status == 0 {
		res.Status = http.StatusOK
	}
	if err != nil {
		log.printf("%s", fmt.Sprintf("error: unable to drain node %q due to error: %s, continuing command...", a.Node, err))
		log.printf("%s", "There are pending nodes to be drained:")
		log.printf("%s", " "+a.Node)
		res.Message = "error: " + err.Error()
		return res, err
	}
	log.printf("%s", "node/"+a.Node+" drained")
	return res, nil
}

// joinErrors is utilerrors.NewAggregate's text: one error as it is,
// more in brackets.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	return fmt.Errorf("[%s]", strings.Join(msgs, ", "))
}
