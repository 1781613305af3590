package web

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/tui"
)

// lesson is one session of the lesson, on its own cluster (or replay):
// the epoch of the log it writes, and the goroutines that turn its
// events and steps into messages.
type lesson struct {
	epoch int
	sess  tui.Session
	book  *book
	// ended takes the end message from the steps' goroutine to the
	// events', which publishes it after every event already recorded.
	ended  chan endMsg
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// startLesson starts the lesson on a fresh session, in a new epoch,
// after stopping the one playing. One start at a time: a second
// request while one is under way gets errStarting.
func (s *Server) startLesson(ctx context.Context) error {
	s.mu.Lock()
	if s.starting {
		s.mu.Unlock()
		return errStarting
	}
	s.starting = true
	old := s.cur
	s.cur = nil
	opts := tui.StartOptions{Mode: s.mode, Speed: s.speed, Lang: s.lang}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.starting = false
		s.mu.Unlock()
	}()
	if old != nil {
		_ = old.stop()
	}
	epoch := s.hub.reset()
	s.hub.publish(epoch, sessionMsg{T: "session", Epoch: epoch, Scenario: s.scenarioLocked()}, false)
	s.quiz.reset()
	sess, err := s.cfg.Driver.Start(ctx, s.cfg.Scenario, opts)
	if err != nil {
		s.hub.publish(epoch, endMsg{T: "end", Error: "the lesson did not start: " + err.Error()}, false)
		return err
	}
	runCtx, cancel := context.WithCancel(s.ctx)
	if s.ctx.Err() != nil { // the server closed while the cluster started
		cancel()
		_ = sess.Close()
		return s.ctx.Err()
	}
	l := &lesson{epoch: epoch, sess: sess, book: newBook(time.Now()), ended: make(chan endMsg, 1), cancel: cancel}
	s.mu.Lock()
	s.cur = l
	s.mu.Unlock()
	l.run(runCtx, s)
	return nil
}

var errStarting = fmt.Errorf("the lesson is starting; wait for it")

// scenarioLocked is scenario, taking the lock.
func (s *Server) scenarioLocked() *scenarioMsg {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.scenario()
}

// run starts the lesson's goroutines: its events, its steps and the
// cluster's state, each a writer of the lesson's epoch.
func (l *lesson) run(ctx context.Context, s *Server) {
	l.wg.Add(3)
	go func() {
		defer l.wg.Done()
		l.pumpEvents(ctx, s)
	}()
	go func() {
		defer l.wg.Done()
		l.pumpSteps(ctx, s)
	}()
	go func() {
		defer l.wg.Done()
		watchCluster(ctx, l.sess.RESTConfig(), func(m clusterMsg) { s.hub.publish(l.epoch, m, false) })
	}()
}

// stop ends the lesson's goroutines and closes its session.
func (l *lesson) stop() error {
	l.cancel()
	err := l.sess.Close()
	l.wg.Wait()
	return err
}

// pumpEvents turns the session's flow events into arrows, and the gate's
// holds into hold messages, until the session's events end. The lesson's
// end is published after the events recorded before it.
func (l *lesson) pumpEvents(ctx context.Context, s *Server) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-l.sess.Events():
			if !ok {
				return
			}
			l.publishEvent(s, ev)
		case m := <-l.ended:
			l.drain(s)
			s.hub.publish(l.epoch, m, false)
		}
	}
}

// drain publishes the events waiting in the session's channel.
func (l *lesson) drain(s *Server) {
	for {
		select {
		case ev, ok := <-l.sess.Events():
			if !ok {
				return
			}
			l.publishEvent(s, ev)
		default:
			return
		}
	}
}

// publishEvent publishes ev's arrows, or the gate's state for a hold.
func (l *lesson) publishEvent(s *Server, ev flow.Event) {
	if ev.Hold != nil {
		s.hub.publish(l.epoch, holdState(l.sess.Gate()), false)
		return
	}
	for _, a := range l.book.arrows(ev) {
		s.hub.publish(l.epoch, a, false)
	}
}

// holdState is the gate's state as a message.
func holdState(g *flow.Gate) holdMsg {
	m := holdMsg{T: "hold", Held: []heldMsg{}, Mode: g.Mode().String()}
	for _, b := range g.Held() {
		m.Held = append(m.Held, heldOf(b))
	}
	return m
}

// heldOf is a held boundary as a hold message shows it.
func heldOf(b flow.Boundary) heldMsg {
	h := heldMsg{Point: string(b.Point), After: int(b.Point.After()), Component: b.Component,
		Object: b.Object.Name, Step: b.Point == flow.PointNextStep}
	if b.Object.Namespace != "" {
		h.Object = b.Object.Namespace + "/" + b.Object.Name
	}
	return h
}

// pumpSteps turns the scenario's progress into step messages, and its
// end into the end message.
func (l *lesson) pumpSteps(ctx context.Context, s *Server) {
	for {
		select {
		case <-ctx.Done():
			return
		case up, ok := <-l.sess.Steps():
			if !ok {
				l.finish(ctx)
				return
			}
			s.quiz.follow(l.epoch, up)
			s.hub.publish(l.epoch, stepMessage(up), false)
		}
	}
}

// finish says the lesson ended, once its session says how (through the
// events' goroutine).
func (l *lesson) finish(ctx context.Context) {
	select {
	case <-ctx.Done():
		return
	case <-l.sess.Done():
	}
	m := endMsg{T: "end"}
	if err := l.sess.Err(); err != nil {
		m.Error = err.Error()
	}
	l.ended <- m // buffered: the one end
}

// stepMessage is a step update as a message (Answer -1).
func stepMessage(up tui.StepUpdate) stepMsg {
	m := stepMsg{T: "step", Index: up.Index, Total: up.Total, ID: up.ID, Narration: up.Narration,
		Action: up.Action, Done: up.Done, Result: up.Result, Answer: -1}
	if up.Err != nil {
		m.Error = up.Err.Error()
	}
	if q := up.Question; q != nil {
		m.Question = &questionMsg{Ask: q.Ask, Choices: q.Choices}
	}
	// The answer is not in it: the teacher's reveal carries it, so that
	// no student's browser has it before the class sees it.
	return m
}
