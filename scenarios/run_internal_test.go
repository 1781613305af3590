package scenarios

import (
	"context"
	"strings"
	"testing"
	"time"
)

// countingProber holds from its holdsAt-th look on (never when 0).
type countingProber struct {
	holdsAt, looks int
}

func (c *countingProber) Kind() string   { return "counting" }
func (c *countingProber) String() string { return "counting" }
func (c *countingProber) probe(context.Context, *player) (string, bool, <-chan struct{}) {
	c.looks++
	if c.holdsAt > 0 && c.looks >= c.holdsAt {
		return "", true, nil
	}
	return "look " + strings.Repeat("I", c.looks), false, nil
}

// unknownExpectation is an Expectation the runner cannot check.
type unknownExpectation struct{}

func (unknownExpectation) Kind() string   { return "unknown" }
func (unknownExpectation) String() string { return "unknown" }

// TestCheck: a prober is looked at until it holds, or until the step's
// timeout, then its last answer is the failure; a result expectation is
// looked at once; an expectation of neither kind fails.
func TestCheck(t *testing.T) {
	p := &player{}
	st := &Step{Index: 1, Timeout: DefaultTimeout}
	got, ok, err := p.check(context.Background(), st, &countingProber{holdsAt: 3}, &StepResult{})
	if !ok || err != nil || got != "" {
		t.Errorf("a prober that holds at its 3rd look: %q, %v, %v; want it to hold", got, ok, err)
	}

	short := &Step{Index: 1, Timeout: 150 * time.Millisecond}
	never := &countingProber{}
	got, ok, err = p.check(context.Background(), short, never, &StepResult{})
	if ok || err != nil || !strings.HasPrefix(got, "look I") || !strings.HasSuffix(got, " after 150ms") {
		t.Errorf("a prober that never holds: %q, %v, %v; want its last answer and the timeout", got, ok, err)
	}

	got, ok, _ = p.check(context.Background(), st, &StatusExpectation{Code: 201}, &StepResult{Status: 201})
	if !ok || got != "" {
		t.Errorf("status 201 of a 201: %q, %v; want it to hold", got, ok)
	}

	got, ok, _ = p.check(context.Background(), st, unknownExpectation{}, &StepResult{})
	if ok || got != "an expectation this runner does not know (unknown)" {
		t.Errorf("an unknown expectation: %q, %v; want it to fail and say so", got, ok)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, ok, err := p.check(ctx, st, &countingProber{}, &StepResult{}); ok || err != context.Canceled {
		t.Errorf("with a cancelled context: %v, %v; want context.Canceled", ok, err)
	}
}
