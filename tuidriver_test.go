package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/tui"
)

// playToEnd starts name on d and returns its flow events once the
// scenario is done.
func playToEnd(t *testing.T, d *scenarioDriver, name string) (tui.Session, []flow.Event) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	s, err := d.Start(ctx, name, tui.StartOptions{Mode: flow.ModeAuto, Speed: 0, Lang: "en"})
	if err != nil {
		t.Fatalf("Start(%s): %v", name, err)
	}
	var events []flow.Event
	var steps int
	stepsCh := s.Steps()
	for stepsCh != nil {
		select {
		case ev := <-s.Events():
			events = append(events, ev)
		case u, ok := <-stepsCh:
			if !ok {
				stepsCh = nil
				break
			}
			if u.Done {
				steps++
			}
		case <-ctx.Done():
			t.Fatalf("%s did not finish: %d steps done", name, steps)
		}
	}
	<-s.Done()
	if err := s.Err(); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	// Events recorded before the end may still be in the channel.
	for {
		select {
		case ev := <-s.Events():
			events = append(events, ev)
			continue
		default:
		}
		break
	}
	return s, events
}

func TestScenarioDriver(t *testing.T) {
	d, err := newScenarioDriver(t.TempDir(), 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if got := d.Scenarios(); len(got) < 12 || got[0].Name != "pod-create" || got[0].Title.Zh == "" {
		t.Fatalf("Scenarios() = %d entries starting with %+v; want the library, pod-create first", len(got), got[0])
	}

	s1, events := playToEnd(t, d, "pod-create")
	var create *flow.EtcdWrite
	uid1 := ""
	for _, ev := range events {
		if ev.Stage == flow.StagePersisted && ev.Etcd != nil {
			create, uid1 = ev.Etcd, string(ev.Object.UID)
		}
	}
	if create == nil {
		t.Fatalf("no stage 2 among %d events", len(events))
	}
	// History reads the pod as stage 2 wrote it, from etcd's MVCC history.
	val, err := s1.History(context.Background(), create.Key, create.Revision)
	if err != nil {
		t.Fatalf("History(%s, %d): %v", create.Key, create.Revision, err)
	}
	var pod struct {
		Metadata struct{ UID string }      `json:"metadata"`
		Spec     struct{ NodeName string } `json:"spec"`
	}
	if err := json.Unmarshal(val, &pod); err != nil || pod.Metadata.UID != uid1 || pod.Spec.NodeName != "" {
		t.Errorf("History at the create's revision: uid %q node %q (err %v); want uid %s, no node yet", pod.Metadata.UID, pod.Spec.NodeName, err, uid1)
	}
	if _, err := s1.History(context.Background(), create.Key, create.Revision-1); err == nil {
		t.Errorf("History before the create: want an error, the key did not exist")
	}
	kubeconfig := s1.Kubeconfig()

	// A restart closes the first session and starts from an empty etcd:
	// the pod is created again (stage 1 and 2 for a new UID), under the
	// same kubeconfig path.
	s2, events := playToEnd(t, d, "pod-create")
	if s2.Kubeconfig() != kubeconfig {
		t.Errorf("kubeconfig moved from %s to %s", kubeconfig, s2.Kubeconfig())
	}
	created := false
	for _, ev := range events {
		if ev.Stage == flow.StagePersisted && ev.Etcd != nil && ev.Etcd.Op == "create" {
			created = string(ev.Object.UID) != uid1
		}
	}
	if !created {
		t.Errorf("the second play did not create nginx anew (events: %d)", len(events))
	}
	select {
	case <-s1.Done():
	default:
		t.Errorf("the first session still runs after the restart")
	}
}

func TestUserAgentsAgree(t *testing.T) {
	if tui.ActionUserAgent != scenarios.ActionUserAgent {
		t.Errorf("tui.ActionUserAgent %q, scenarios.ActionUserAgent %q: the TUI would show none of a step's requests", tui.ActionUserAgent, scenarios.ActionUserAgent)
	}
}
