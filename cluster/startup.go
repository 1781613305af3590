package cluster

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// StartupStep is one step of a cluster's start, in the order of
// kube-apiserver's command: Complete, Validate, then the steps of Run.
type StartupStep struct {
	// At is the time since Start began.
	At time.Duration
	// Phase is StartupComplete, StartupValidate or StartupRun.
	Phase string
	// Name is what the step is about: "options", "etcd", "listener",
	// "serverchain" (one server of the chain built, named by Server),
	// "caches", "serving", "poststarthook" (one hook, named by Hook),
	// "poststarthooks" (all of them), "readyz", "components",
	// "serviceaccount" (the default ServiceAccount made, when the
	// controller manager runs).
	Name string
	// Hook is the post-start hook's name (a "poststarthook" step only):
	// /readyz?verbose lists it as poststarthook/<Hook>.
	Hook string
	// Server is the server of the delegation chain built (a
	// "serverchain" step only): kube-aggregator, kube-apiserver or
	// apiextensions-apiserver.
	Server string
	// Outcome is "ok", "failed", "started", "finished", "bound" or
	// "built".
	Outcome string
	// Detail says more: the options, an address, why it failed.
	Detail string
}

// The phases of StartupStep.
const (
	StartupComplete = "Complete"
	StartupValidate = "Validate"
	StartupRun      = "Run"
)

// String is the step as serve --trace prints it, in the layout of a
// request trace's steps: time since the start, phase and name, outcome,
// detail.
func (s StartupStep) String() string {
	return flow.Printable(fmt.Sprintf("%9s  %-8s %-14s %-9s %s", "+"+flow.FormatDuration(s.At), s.Phase, s.Name, s.Outcome, s.Detail))
}

// startupLog records a cluster's startup steps and passes each on to
// Config.OnStartup. Safe for concurrent use.
type startupLog struct {
	mu     sync.Mutex
	began  time.Time
	steps  []StartupStep
	notify func(StartupStep)
}

func newStartupLog(notify func(StartupStep)) *startupLog {
	return &startupLog{began: time.Now(), notify: notify}
}

// add records a step, then tells notify, under the lock (one call at a
// time, in order).
func (l *startupLog) add(phase, name, outcome, detail string) {
	l.addStep(StartupStep{Phase: phase, Name: name, Outcome: outcome, Detail: detail})
}

// addStep records s, timed now.
func (l *startupLog) addStep(s StartupStep) { l.addStepAt(s, time.Now()) }

// addStepAt records s, which happened at t.
func (l *startupLog) addStepAt(s StartupStep, t time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s.At = t.Sub(l.began)
	l.steps = append(l.steps, s)
	if l.notify != nil {
		l.notify(s)
	}
}

// list returns the steps so far.
func (l *startupLog) list() []StartupStep {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]StartupStep(nil), l.steps...)
}

// StartupSteps returns the steps of the cluster's start so far, then
// those of every RestartAPIServer, in order.
func (c *Cluster) StartupSteps() []StartupStep { return c.startup.list() }

// apiStartup turns the API server's startup events into steps.
func (l *startupLog) apiStartup(ev apiserver.StartupEvent) {
	switch ev.Step {
	case apiserver.StartupListenerBound:
		l.addStepAt(StartupStep{Phase: StartupRun, Name: "listener", Outcome: "bound", Detail: ev.Detail + " (HTTP/2 and HTTP/1.1)"}, ev.Time)
	case apiserver.StartupServerBuilt:
		l.addStepAt(StartupStep{Phase: StartupRun, Name: "serverchain", Server: ev.Server, Outcome: "built",
			Detail: ev.Server + ", delegate " + ev.Delegate + ": " + ev.Detail}, ev.Time)
	case apiserver.StartupCachesSynced:
		l.add(StartupRun, "caches", "ok", "kubesim's own step: watch caches and RBAC cache loaded before it serves (kube-apiserver serves first, and its readyz waits for them: poststarthook/storage-readiness, informer-sync)")
	case apiserver.StartupServing:
		l.add(StartupRun, "serving", "ok", "accepting requests; readyz fails until every post-start hook has finished")
	case apiserver.StartupHookStarted:
		l.addStep(StartupStep{Phase: StartupRun, Name: "poststarthook", Hook: ev.Hook, Outcome: "started", Detail: ev.Hook})
	case apiserver.StartupHookFinished:
		l.addStep(StartupStep{Phase: StartupRun, Name: "poststarthook", Hook: ev.Hook, Outcome: "finished", Detail: ev.Hook})
	case apiserver.StartupHookFailed:
		l.addStep(StartupStep{Phase: StartupRun, Name: "poststarthook", Hook: ev.Hook, Outcome: "failed", Detail: ev.Hook + ": " + ev.Err.Error()})
	case apiserver.StartupReady:
		l.add(StartupRun, "poststarthooks", "finished", "every post-start hook has returned")
	}
}

// describeOptions is the Complete step's detail: the options Start runs
// with and those Complete filled.
func describeOptions(cfg *Config, filled []string) string {
	dir := cfg.DataDir
	if dir == "" {
		dir = "a temporary directory"
	}
	nodes := fmt.Sprintf("%d nodes", len(cfg.Nodes))
	if len(cfg.Nodes) == 1 {
		nodes = "1 node"
	}
	d := fmt.Sprintf("address %s, port %d, speed %g, %s, data dir %s", cfg.BindAddress, cfg.Port, cfg.Speed, nodes, dir)
	if len(filled) == 0 {
		return d + "; no default left to fill"
	}
	return d + "; defaults filled: " + strings.Join(filled, ", ")
}

// describeComponents is the components step's detail.
func describeComponents(cfg *Config) string {
	var parts []string
	if cfg.Scheduler {
		parts = append(parts, "scheduler")
	}
	if cfg.ControllerManager {
		parts = append(parts, "controller manager")
	}
	if len(cfg.Nodes) > 0 {
		names := make([]string, len(cfg.Nodes))
		for i, n := range cfg.Nodes {
			names[i] = n.Name
		}
		parts = append(parts, "kubelets "+strings.Join(names, ", "))
	}
	if cfg.AttachNodes {
		parts = append(parts, "a kubelet for each Node created")
	}
	if cfg.MetricsServer {
		parts = append(parts, "metrics server (APIService v1beta1.metrics.k8s.io)")
	}
	if len(parts) == 0 {
		return "none (API only)"
	}
	return strings.Join(parts, "; ")
}
