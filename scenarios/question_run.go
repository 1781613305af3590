package scenarios

import (
	"context"
	"fmt"
	"time"
)

// answer decides the answer to the step's question from this run: it
// looks at the question's fact (waiting for its evidence up to the
// step's timeout, as for an expectation) and sets res.FactValue, and
// res.Answer to the index of the one choice with that value. When the
// fact cannot be told, or no choice has its value, the step fails: a
// lesson whose question would teach something this run did not show
// must not pass.
func (p *player) answer(ctx context.Context, st *Step, res *StepResult) {
	q := st.Question
	fail := func(exp, got string) {
		res.Err = &ExpectationError{Step: st.Index, StepID: st.ID, Expectation: exp, Got: got}
	}
	value, ok, err := p.lookFact(ctx, st, q.fact, res)
	if err != nil {
		res.Err = err
		return
	}
	name := fmt.Sprintf("question %q", q.Ask.En)
	if !ok {
		fail(fmt.Sprintf("the fact of %s (the %s) to be known", name, q.About.En), value)
		return
	}
	res.FactValue = value
	for i, c := range q.Choices {
		if c.Value == value { // the loader keeps the values distinct
			res.Answer = i
			return
		}
	}
	values := make([]string, len(q.Choices))
	for i, c := range q.Choices {
		values[i] = c.Value
	}
	fail(fmt.Sprintf("%s to have a choice for the run's %s (choices: %s)", name, q.About.En, joinComma(values)),
		fmt.Sprintf("%s, which no choice has", value))
}

// lookFact looks at f until it is known or the step's timeout passes (a
// fact that says looking again would not help is looked at once); when
// not ok, value says what was seen last.
func (p *player) lookFact(ctx context.Context, st *Step, f fact, res *StepResult) (value string, ok bool, err error) {
	bctx, cancel := p.withBudget(ctx, p.timeout(st))
	defer cancel()
	for {
		rctx, rcancel := context.WithTimeout(ctx, p.patient(probeTimeout))
		value, ok, changed := f.look(rctx, p, res)
		rcancel()
		switch {
		case ok:
			return value, true, nil
		case ctx.Err() != nil:
			return "", false, ctx.Err()
		case changed == nil:
			return value, false, nil
		case bctx.Err() != nil:
			return fmt.Sprintf("%s after %s", value, p.timeout(st)), false, nil
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
