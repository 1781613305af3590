package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/recording"
)

// sessionFile is the file of play --record-session, written from the
// first step on. A nil *sessionFile records nothing.
type sessionFile struct {
	f    *os.File
	w    *recording.Writer
	done bool
}

// createSessionFile creates path ("" records nothing: nil).
func createSessionFile(path string) (*sessionFile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--record-session: %w", err)
	}
	return &sessionFile{f: f}, nil
}

// playHeader is the header of a headless play's recording.
func playHeader(o playOptions, speed float64) recording.Header {
	h := recording.Header{Lang: o.lang, Output: "plain", Speed: speed, Step: o.step}
	if o.json {
		h.Output = "json"
	}
	return h
}

// recordSession creates path and starts recording sc's run on it ("": a
// nil *sessionFile, out as it is).
func recordSession(path string, sc *scenarios.Scenario, h recording.Header, out scenarios.Observer) (*sessionFile, scenarios.Observer, error) {
	s, err := createSessionFile(path)
	if err != nil {
		return nil, out, err
	}
	if out, err = s.start(sc, h, out); err != nil {
		s.Close()
		return nil, out, err
	}
	return s, out, nil
}

// start writes the header h of sc's run (its scenario and stages filled
// in here) and returns out wrapped, so that every call Play makes to it
// is recorded first.
func (s *sessionFile) start(sc *scenarios.Scenario, h recording.Header, out scenarios.Observer) (scenarios.Observer, error) {
	if s == nil {
		return out, nil
	}
	h.Scenario = recording.ScenarioInfo{Name: sc.Name, Level: sc.Level, Title: sc.Title, Summary: sc.Summary, Steps: len(sc.Steps)}
	h.Stages = scenarios.StageSteps(sc)
	w, err := recording.NewWriter(s.f, h, nil)
	if err != nil {
		return out, fmt.Errorf("--record-session: %w", err)
	}
	s.w = w
	return w.Observe(out), nil
}

// end writes the end of the run whose error is runErr and returns runErr,
// joined with what went wrong recording.
func (s *sessionFile) end(runErr error) error {
	if s == nil || s.w == nil {
		return runErr
	}
	s.done = true
	err := s.w.End(runErr)
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return errors.Join(runErr, fmt.Errorf("--record-session %s: %w", s.f.Name(), err))
	}
	return runErr
}

// Close closes the file when the run ended before end: the recording is
// then cut short, which replay refuses. Safe to call more than once.
func (s *sessionFile) Close() {
	if s != nil && !s.done {
		s.done = true
		_ = s.f.Close()
	}
}
