package flow_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/waitfor"
)

func boundary(name string, p flow.Point) flow.Boundary {
	return flow.Boundary{Point: p, Component: "test", Object: flow.ObjectRef{Kind: "Pod", Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
}

// waitDone fails the test unless done is closed within a few seconds.
func waitDone(t *testing.T, done <-chan error, what string) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(waitfor.Bound):
		t.Fatalf("%s: still waiting", what)
		return nil
	}
}

func TestGateOffAndNil(t *testing.T) {
	ctx := context.Background()
	var nilGate *flow.Gate
	if err := nilGate.Wait(ctx, boundary("p", flow.PointBeforePersist)); err != nil {
		t.Errorf("nil gate: %v", err)
	}
	if nilGate.Advance() != 0 || nilGate.Held() != nil || nilGate.Mode() != flow.ModeOff {
		t.Error("nil gate holds something")
	}
	rec := flow.NewRecorder()
	sub := rec.Subscribe(10)
	defer sub.Close()
	g := flow.NewGate(flow.ModeOff, time.Hour, rec)
	if err := g.Wait(ctx, boundary("p", flow.PointBeforePersist)); err != nil {
		t.Errorf("off gate: %v", err)
	}
	select {
	case e := <-sub.Events():
		t.Errorf("off gate recorded %+v", e)
	default:
	}
}

func TestGateStepHoldsUntilAdvance(t *testing.T) {
	ctx := context.Background()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(10)
	defer sub.Close()
	g := flow.NewGate(flow.ModeStep, 0, rec)
	if n := g.Advance(); n != 0 {
		t.Errorf("Advance with nothing held = %d", n)
	}
	b := boundary("p", flow.PointBeforeBinding)
	done := make(chan error, 1)
	go func() { done <- g.Wait(ctx, b) }()
	held, err := g.WaitHeld(ctx)
	if err != nil || len(held) != 1 || held[0] != b {
		t.Fatalf("WaitHeld = %v, %v; want [%v]", held, err, b)
	}
	select {
	case <-done:
		t.Fatal("Wait returned before Advance")
	case <-time.After(50 * time.Millisecond):
	}
	if e := <-sub.Events(); e.Hold == nil || e.Hold.Released || e.Hold.Boundary != b || e.Stage != 0 || e.Component != "gate" {
		t.Errorf("hold event %+v", e)
	}
	if n := g.Advance(); n != 1 {
		t.Errorf("Advance = %d, want 1", n)
	}
	if err := waitDone(t, done, "Wait after Advance"); err != nil {
		t.Errorf("Wait: %v", err)
	}
	if e := <-sub.Events(); e.Hold == nil || !e.Hold.Released {
		t.Errorf("release event %+v", e)
	}
	if len(g.Held()) != 0 {
		t.Errorf("still held: %v", g.Held())
	}
}

func TestGateAdvanceReleasesEveryHeld(t *testing.T) {
	ctx := context.Background()
	g := flow.NewGate(flow.ModeStep, 0, nil)
	var wg sync.WaitGroup
	const pods = 5
	for i := range pods {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := g.Wait(ctx, boundary(string(rune('a'+i)), flow.PointBeforeScheduling)); err != nil {
				t.Error(err)
			}
		}()
	}
	deadline := time.Now().Add(waitfor.Bound)
	for len(g.Held()) < pods {
		if time.Now().After(deadline) {
			t.Fatalf("held %d of %d", len(g.Held()), pods)
		}
		time.Sleep(time.Millisecond)
	}
	if n := g.Advance(); n != pods {
		t.Errorf("Advance = %d, want %d", n, pods)
	}
	wg.Wait()
}

func TestGateCancelledWait(t *testing.T) {
	g := flow.NewGate(flow.ModeStep, 0, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.Wait(ctx, boundary("p", flow.PointBeforeContainers)) }()
	if _, err := g.WaitHeld(context.Background()); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := waitDone(t, done, "cancelled Wait"); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
	if len(g.Held()) != 0 {
		t.Errorf("a cancelled wait is still held: %v", g.Held())
	}
}

func TestGateOffReleases(t *testing.T) {
	ctx := context.Background()
	g := flow.NewGate(flow.ModeStep, time.Hour, nil)
	done := make(chan error, 1)
	go func() { done <- g.Wait(ctx, boundary("p", flow.PointBeforeStatusReport)) }()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatal(err)
	}
	g.SetMode(flow.ModeOff)
	if err := waitDone(t, done, "Wait after turning the gate off"); err != nil {
		t.Errorf("Wait: %v", err)
	}
	if g.Mode() != flow.ModeOff {
		t.Errorf("mode %v", g.Mode())
	}
}

func TestGateAuto(t *testing.T) {
	ctx := context.Background()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(10)
	defer sub.Close()
	b := boundary("p", flow.PointBeforeKubeletWatch)

	// A short delay passes by itself, recording the hold and its end.
	g := flow.NewGate(flow.ModeAuto, time.Millisecond, rec)
	if err := g.Wait(ctx, b); err != nil {
		t.Fatal(err)
	}
	held, released := <-sub.Events(), <-sub.Events()
	if held.Hold == nil || held.Hold.Released || released.Hold == nil || !released.Hold.Released {
		t.Errorf("events %+v, %+v; want held then released", held, released)
	}

	// A long one is cut short by Advance...
	g.SetDelay(time.Hour)
	done := make(chan error, 1)
	go func() { done <- g.Wait(ctx, b) }()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatal(err)
	}
	g.Advance()
	if err := waitDone(t, done, "auto Wait after Advance"); err != nil {
		t.Error(err)
	}

	// ...and turned into a step hold by ModeStep, which a short delay
	// then does not end.
	go func() { done <- g.Wait(ctx, b) }()
	if _, err := g.WaitHeld(ctx); err != nil {
		t.Fatal(err)
	}
	g.SetMode(flow.ModeStep)
	g.SetDelay(time.Millisecond)
	g.SetMode(flow.ModeAuto) // the held boundary waits the new delay from now
	if err := waitDone(t, done, "Wait back in auto mode"); err != nil {
		t.Error(err)
	}

	// With no delay, auto mode records nothing.
	for len(sub.Events()) > 0 {
		<-sub.Events()
	}
	g.SetDelay(0)
	if err := g.Wait(ctx, b); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-sub.Events():
		t.Errorf("zero-delay auto gate recorded %+v", e)
	default:
	}

	// A cancelled context ends an auto hold.
	g.SetDelay(time.Hour)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := g.Wait(cctx, b); !errors.Is(err, context.Canceled) {
		t.Errorf("Wait = %v, want context.Canceled", err)
	}
	if len(g.Held()) != 0 {
		t.Errorf("held after cancel: %v", g.Held())
	}
}

func TestPointsFollowTheStages(t *testing.T) {
	if len(flow.Points) != 8 {
		t.Fatalf("%d points, want 8", len(flow.Points))
	}
	prev := flow.Stage(0)
	for _, p := range flow.Points {
		s := p.After()
		if s == 0 || s < prev {
			t.Errorf("%s follows stage %v, after %v", p, s, prev)
		}
		prev = s
	}
	if flow.Point("nowhere").After() != 0 {
		t.Error("an unknown point follows a stage")
	}
}

func TestRecorderNumbersEvents(t *testing.T) {
	r := flow.NewRecorder()
	sub := r.Subscribe(100)
	defer sub.Close()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				r.Record(flow.Event{})
			}
		}()
	}
	wg.Wait()
	for want := uint64(1); want <= 80; want++ {
		if e := <-sub.Events(); e.Seq != want {
			t.Fatalf("event Seq %d, want %d: a subscriber sees events in recording order", e.Seq, want)
		}
	}
}

func TestGateReleaseOnlyThose(t *testing.T) {
	ctx := context.Background()
	g := flow.NewGate(flow.ModeStep, 0, nil)
	a, b := boundary("a", flow.PointBeforeBinding), boundary("b", flow.PointBeforeBinding)
	done := map[string]chan error{"a": make(chan error, 1), "b": make(chan error, 1)}
	go func() { done["a"] <- g.Wait(ctx, a) }()
	held, err := g.WaitHeld(ctx)
	if err != nil || len(held) != 1 || held[0] != a {
		t.Fatalf("WaitHeld = %v, %v; want a", held, err)
	}
	// b is held after a was announced: releasing what was announced
	// lets a go and keeps b.
	go func() { done["b"] <- g.Wait(ctx, b) }()
	deadline := time.Now().Add(waitfor.Bound)
	for len(g.Held()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("b is not held: %v", g.Held())
		}
		time.Sleep(time.Millisecond)
	}
	if n := g.Release(held...); n != 1 {
		t.Errorf("Release(a) = %d, want 1", n)
	}
	if err := waitDone(t, done["a"], "a"); err != nil {
		t.Errorf("a: %v", err)
	}
	if got := g.Held(); len(got) != 1 || got[0] != b {
		t.Errorf("held after Release(a): %v, want b", got)
	}
	if n := g.Release(a); n != 0 {
		t.Errorf("Release(a) again = %d, want 0", n)
	}
	if n := g.Release(b); n != 1 {
		t.Errorf("Release(b) = %d, want 1", n)
	}
	if err := waitDone(t, done["b"], "b"); err != nil {
		t.Errorf("b: %v", err)
	}
	var nilGate *flow.Gate
	if nilGate.Release(a) != 0 {
		t.Error("nil gate released something")
	}
}
