package scenarios

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
)

// Options says how Play runs a scenario.
type Options struct {
	// Lang is the language of narration ("en" or "zh"); it is passed on
	// to nobody but kept for observers that ask (printers take their own).
	Lang string
	// Speed divides the steps' pauses (wait, poll intervals); 0 removes
	// them. A negative Speed means the scenario's (Cluster.Speed).
	Speed float64
	// Observer, if not nil, is told about each step; if it also
	// implements EventObserver it receives every flow event recorded
	// while the scenario plays.
	Observer Observer
	// Gate, if not nil, is the cluster's gate. Each step's action then
	// waits at flow.PointNextStep first (after StepStarted), and time
	// during which the gate holds anything does not count toward a
	// step's timeout: a learner may look at a held cluster as long as
	// they like.
	Gate *flow.Gate
	// Patience multiplies every step's timeout and the bound of each look
	// at an expectation (0 counts as 1): a machine too busy to run a
	// lesson at its usual pace may be given more time. The test suite,
	// which runs every lesson at once on a machine that may be starved,
	// uses it; a timeout a step reports is the one it had.
	Patience float64
}

// StepInfo describes a step about to run.
type StepInfo struct {
	// Index counts the steps from 1; Total is their number.
	Index, Total int
	ID           string
	Narration    flow.Text
	// As is the user the action acts as.
	As string
	// Server is the API server its requests go to (from 1; 0: the
	// first), in a cluster of topology ha.
	Server int
	// Action describes the action in one line ("" for none).
	Action string
	// Question is the step's question for the learner, asked at the
	// step's gate before its action runs; nil for most steps.
	Question *Question
}

// StepResult is what a step's action produced.
type StepResult struct {
	// Status is the HTTP status of the action's (last) API request; 0
	// for actions that make none (addNode, stopScheduler...).
	Status int
	// Message is the error message of a failed API request, or the
	// response body of an http action.
	Message string
	// Watch are the types of the watch events an http watch or
	// long-poll read, in order (BOOKMARKs included: the server sends
	// them only to clients that ask, with allowWatchBookmarks=true).
	Watch []string
	// WatchVersions are the resourceVersions of the objects those watch
	// events carried, in the same order ("" where an event had none), for
	// the actions that read them (http); WatchFrom is the
	// resourceVersion its first watch request started from ("" when it
	// named none).
	WatchVersions []string
	WatchFrom     string
	// HTTP is the transcript of an http action, one line each: the
	// request and status lines, headers, and the body as it arrived (for
	// an HTTP/1.1 stream, each chunk with its size).
	HTTP []string
	// Transcript is HTTP in both languages (our words in it translated);
	// printers show it in theirs.
	Transcript []flow.Text
	// Requests are the API server's traces of the requests the action
	// sent (as its Audit-Id headers name them), in order: the nine steps
	// of each, with the route go-restful chose and the status code.
	Requests []*flow.RequestTrace
	// Evidence is what the action found that its step's expectations
	// read besides the above (the go-restful lab's dispatches and
	// answers); nil for most actions.
	Evidence any
	// Answer is, for a step with a Question, the index (from 0) of the
	// choice the run made true, decided from this run's evidence; -1
	// when the step has no question (or none of its choices came true,
	// which fails the step).
	Answer int
	// FactValue is, for a step with a Question, the value its fact had
	// in this run ("201", "node-2"), when the runner could tell.
	FactValue string
	// Checked is what the step's expectations read from the API when
	// they held, one line each in both languages: the checked objects'
	// fields as the run had them (a condition's status, reason and
	// message; an Endpoints' addresses and ports).
	Checked []flow.Text
	// Err is nil when the step passed, else why it failed (an
	// *ExpectationError, or the context's error).
	Err error
}

// Observer follows a scenario as Play runs it. Play calls it from one
// goroutine, in step order.
type Observer interface {
	StepStarted(StepInfo)
	StepFinished(StepInfo, StepResult)
}

// EventObserver receives the flow events recorded while a scenario plays,
// in recording order, from a goroutine of Play's (not the one calling
// StepStarted). Every event is delivered before the expectation that
// depends on it is seen to hold.
type EventObserver interface {
	Event(flow.Event)
}

// ExpectationError says which step failed, what it expected and what it
// saw instead. A step whose action fails (an API error the step does not
// expect, a component that cannot start) fails the same way, with
// Expectation "<action> to succeed".
type ExpectationError struct {
	// Step is the step's index (from 1), StepID its id ("" if none).
	Step        int
	StepID      string
	Expectation string
	Got         string
}

func (e *ExpectationError) Error() string {
	name := strconv.Itoa(e.Step)
	if e.StepID != "" {
		name += " (" + e.StepID + ")"
	}
	return fmt.Sprintf("step %s: expected %s, saw %s", name, e.Expectation, e.Got)
}

// pollInterval is how often an expectation is looked at again.
const pollInterval = 50 * time.Millisecond

// Play runs the steps of s against c, in order, and returns nil when every
// expectation held, an *ExpectationError for the first that did not (the
// remaining steps are not run), or ctx's error. c is a running cluster,
// usually started with a config s.Configure filled. Play subscribes to
// c.Recorder for its whole run, so no flow event of a step is missed.
func Play(ctx context.Context, c *cluster.Cluster, s *Scenario, opts Options) error {
	speed := opts.Speed
	if speed < 0 {
		speed = s.Cluster.Speed
	}
	p := &player{cluster: c, scenario: s, speed: speed, gate: opts.Gate, patience: max(opts.Patience, 1), changed: make(chan struct{}),
		dynamicClients: map[string]dynamic.Interface{}, reviewClients: map[string]kubernetes.Interface{}, versionsSeen: map[string][]string{}, nodeSpecs: map[string]cluster.NodeSpec{}}
	for _, n := range s.Cluster.Nodes {
		p.nodeSpecs[n.Name] = n
	}
	admin, err := expectClient(c)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	p.admin = admin

	sub := c.Recorder.Subscribe(1 << 14)
	eo, _ := opts.Observer.(EventObserver)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range sub.Events() {
			if eo != nil {
				eo.Event(ev)
			}
			p.record(ev)
		}
	}()
	defer func() {
		sub.Close()
		<-done
	}()

	for _, st := range s.Steps {
		info := StepInfo{Index: st.Index, Total: len(s.Steps), ID: st.ID, Narration: st.Narration, As: st.As, Server: st.Server, Question: st.Question}
		if st.Action != nil {
			info.Action = st.Action.String()
		}
		if opts.Observer != nil {
			opts.Observer.StepStarted(info)
		}
		res := p.step(ctx, st)
		res.Answer = -1
		if res.Err == nil && st.Question != nil {
			p.answer(ctx, st, &res)
		}
		if opts.Observer != nil {
			opts.Observer.StepFinished(info, res)
		}
		if res.Err != nil {
			return res.Err
		}
	}
	return nil
}

// player is the state of one Play.
type player struct {
	cluster  *cluster.Cluster
	scenario *Scenario
	speed    float64
	gate     *flow.Gate           // nil: no holds, plain timeouts
	patience float64              // Options.Patience, at least 1
	admin    kubernetes.Interface // the client expectations are checked with

	mu      sync.Mutex
	events  []flow.Event
	changed chan struct{} // closed and replaced when events grows
	seen    []flow.Text   // what the probe looking now read (see saw)

	acting   bool     // an action runs: its requests are noted
	auditIDs []string // the audit ids of the running action's requests

	dynamicClients map[string]dynamic.Interface    // by user (see client)
	reviewClients  map[string]kubernetes.Interface // by user (see reviewClient)
	versionsSeen   map[string][]string             // resourceVersions seen, by object (see remember)
	nodeSpecs      map[string]cluster.NodeSpec     // nodes this run knows, for startKubelet
	stoppedEtcd    string                          // the etcd member stopEtcdMember stopped last
	actionServer   int                             // the API server of the running step's action (Step.Server)
}

// record appends ev to the run's events and wakes who waits for more.
func (p *player) record(ev flow.Event) {
	p.mu.Lock()
	p.events = append(p.events, ev)
	close(p.changed)
	p.changed = make(chan struct{})
	p.mu.Unlock()
}

// snapshot returns the events so far and a channel closed when more come.
func (p *player) snapshot() ([]flow.Event, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.events, p.changed
}

// scaled returns d divided by the speed (0 at speed 0).
func (p *player) scaled(d time.Duration) time.Duration {
	if p.speed <= 0 {
		return 0
	}
	return time.Duration(float64(d) / p.speed)
}

// sleep waits d, or until ctx ends (then it returns ctx's error).
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// step runs one step: the action, the pause, the expectations.
func (p *player) step(ctx context.Context, st *Step) StepResult {
	fail := func(res StepResult, exp, got string) StepResult {
		res.Err = &ExpectationError{Step: st.Index, StepID: st.ID, Expectation: exp, Got: got}
		return res
	}
	var res StepResult
	if p.gate != nil {
		b := flow.Boundary{Point: flow.PointNextStep, Component: "scenario",
			Object: flow.ObjectRef{Kind: "Step", Name: fmt.Sprintf("%d/%d %s", st.Index, len(p.scenario.Steps), st.ID)}}
		if err := p.gate.Wait(ctx, b); err != nil {
			res.Err = err
			return res
		}
	}
	if st.Action != nil {
		actx, cancel := p.withBudget(ctx, p.timeout(st))
		var err error
		p.startActing()
		res, err = p.act(actx, st)
		res.Requests = p.stopActing(ctx)
		timedOut := errors.Is(context.Cause(actx), context.DeadlineExceeded)
		cancel()
		if ctx.Err() != nil {
			res.Err = ctx.Err()
			return res
		}
		if err != nil {
			if !expectsResult(st) || res.Status == 0 {
				got := err.Error()
				if timedOut {
					got = fmt.Sprintf("no result within %s (%v)", p.timeout(st), err)
				}
				return fail(res, st.Action.String()+" to succeed", got)
			}
		}
	}
	if err := sleep(ctx, p.scaled(st.Wait)); err != nil {
		res.Err = err
		return res
	}
	for _, e := range st.Expect {
		got, ok, err := p.check(ctx, st, e, &res)
		if err != nil {
			res.Err = err
			return res
		}
		if !ok {
			return fail(res, e.String(), got)
		}
	}
	return res
}

// act runs the step's action as the step's user (see actionRunner).
func (p *player) act(ctx context.Context, st *Step) (StepResult, error) {
	r, ok := st.Action.(actionRunner)
	if !ok {
		return StepResult{}, fmt.Errorf("unknown action %s", st.Action.Kind())
	}
	p.mu.Lock()
	p.actionServer = st.Server
	p.mu.Unlock()
	return r.run(ctx, p, st.As)
}

// expectsResult says whether the step checks its action's status or
// message (an expectation, or its question's fact): then a failed request
// is its result, not a failure.
func expectsResult(st *Step) bool {
	if q := st.Question; q != nil {
		if _, ok := q.fact.(resultFact); ok {
			return true
		}
	}
	for _, e := range st.Expect {
		if _, ok := e.(failedRequestReader); ok {
			return true
		}
	}
	return false
}

// check waits until e holds or the step's timeout passes; got says what
// was seen last. A resultChecker is looked at once; a prober is probed
// again every pollInterval, and at once when flow events arrive.
func (p *player) check(ctx context.Context, st *Step, e Expectation, res *StepResult) (got string, ok bool, err error) {
	var pr prober
	switch e := e.(type) {
	case resultChecker:
		got, ok = e.checkResult(res)
		return got, ok, nil
	case prober:
		pr = e
	default:
		return fmt.Sprintf("an expectation this runner does not know (%s)", e.Kind()), false, nil
	}
	bctx, cancel := p.withBudget(ctx, p.timeout(st))
	defer cancel()
	for {
		var changed <-chan struct{}
		p.takeSeen()
		got, ok, changed = p.probe(ctx, pr)
		if ok {
			res.Checked = append(res.Checked, p.takeSeen()...)
			return "", true, nil
		}
		if ctx.Err() != nil {
			return "", false, ctx.Err()
		}
		if bctx.Err() != nil {
			return fmt.Sprintf("%s after %s", got, p.timeout(st)), false, nil
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-bctx.Done():
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// probeTimeout bounds one look of a prober (times Options.Patience).
const probeTimeout = 5 * time.Second

// timeout is st's timeout times the run's patience.
func (p *player) timeout(st *Step) time.Duration { return p.patient(st.Timeout) }

// patient is d times the run's patience (a player made without
// Options, in tests, has none: d).
func (p *player) patient(d time.Duration) time.Duration {
	return time.Duration(float64(d) * max(p.patience, 1))
}

// probe looks once whether e holds, within probeTimeout.
func (p *player) probe(ctx context.Context, e prober) (got string, ok bool, changed <-chan struct{}) {
	rctx, cancel := context.WithTimeout(ctx, p.patient(probeTimeout))
	defer cancel()
	return e.probe(rctx, p)
}
