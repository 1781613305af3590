package apiserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// A dry-run pod create is neither held at the gate nor a stage: the pods
// endpoint's create hook applies to real creates only.
func TestDryRunPodCreateIsNotHeld(t *testing.T) {
	rec := flow.NewRecorder()
	gate := flow.NewGate(flow.ModeStep, 0, rec)
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder, c.Gate = rec, gate })
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	out, err := ts.client.CoreV1().Pods("default").Create(ctx, testPod("dry", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatalf("dry-run create (held? %v): %v", gate.Held(), err)
	}
	if out.UID == "" {
		t.Error("the dry-run create answered a pod without a UID")
	}
	if held := gate.Held(); len(held) != 0 {
		t.Errorf("held: %v, want nothing", held)
	}
	if _, err := ts.client.CoreV1().Pods("default").Get(ctx, "dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get after the dry run: %v, want NotFound", err)
	}
	// A stage would have been recorded inside the request, before its
	// answer.
	for drained := false; !drained; {
		select {
		case ev := <-sub.Events():
			if ev.Stage != 0 || ev.Hold != nil {
				t.Errorf("event of a dry run: stage %d hold %v: %s", ev.Stage, ev.Hold, ev.Summary)
			}
		default:
			drained = true
		}
	}
}

// Of a dry-run status patch and a real one that both move a tracked pod
// off Pending, only the real one is stage 7: the pods/status hook applies
// to real writes only.
func TestDryRunStatusPatchIsNoStage(t *testing.T) {
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	ctx := context.Background()
	if _, err := ts.client.CoreV1().Pods("default").Create(ctx, testPod("dry", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	created := mustCreatePod(t, ts.client, "default", testPod("web", nil))
	const path = "/api/v1/namespaces/default/pods/web/status"
	const patch = `{"status":{"phase":"Running"}}`
	if code, body := ts.do(t, "PATCH", path+"?dryRun=All", "application/merge-patch+json", patch); code != http.StatusOK {
		t.Fatalf("dry-run status patch: %d %s", code, body)
	}
	if code, body := ts.do(t, "PATCH", path, "application/merge-patch+json", patch); code != http.StatusOK {
		t.Fatalf("status patch: %d %s", code, body)
	}

	evs := stageEvents(t, sub, created.UID, 4)
	var got []flow.Stage
	for _, ev := range evs {
		got = append(got, ev.Stage)
	}
	want := []flow.Stage{flow.StageAdmitted, flow.StagePersisted, flow.StageStatusReported, flow.StageStatusPersisted}
	if len(got) != len(want) {
		t.Fatalf("stages %v, want %v: %s", got, want, describeStages(evs))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("stages %v, want %v: %s", got, want, describeStages(evs))
		}
	}
	if r := evs[2].Request; r == nil || r.Method != "PATCH" || strings.Contains(r.URI, "dryRun") {
		t.Errorf("stage 7 request evidence %+v, want the real patch", r)
	}
}
