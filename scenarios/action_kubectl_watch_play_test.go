package scenarios_test

import (
	"bytes"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
)

// observerList hands what Play reports to each of its observers.
type observerList []scenarios.Observer

func (t observerList) StepStarted(s scenarios.StepInfo) {
	for _, o := range t {
		o.StepStarted(s)
	}
}

func (t observerList) StepFinished(s scenarios.StepInfo, r scenarios.StepResult) {
	for _, o := range t {
		o.StepFinished(s, r)
	}
}

// TestKubectlWatchEvidence plays kubectl-watch with the kubectl on PATH
// and with PATH emptied (client-go sends the requests): either way the
// watch request the client logged, and the lesson prints, is the one
// the API server traced under the same Audit-Id, on the pods list route,
// from the resourceVersion the list answered with; the rows after the
// list's are the watch's events, the first web's ADDED; and the server
// wrote at least as many events as were printed.
func TestKubectlWatchEvidence(t *testing.T) {
	for _, tc := range []struct {
		name      string
		emptyPath bool
	}{{"kubectl", false}, {"client-go", true}} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.emptyPath {
				t.Setenv("PATH", "")
			} else if _, err := exec.LookPath("kubectl"); err != nil {
				t.Skip("no kubectl on PATH")
			}
			s := mustFind(t, "kubectl-watch")
			c := mustStartCluster(t, s)
			rec := &resultRecorder{results: map[string]scenarios.StepResult{}}
			var out bytes.Buffer
			if err := play(t, c, s, observerList{rec, scenarios.NewPlainPrinter(&out, "en")}); err != nil {
				t.Fatalf("Play: %v\n%s", err, out.String())
			}
			checkKubectlWatch(t, rec.results["kubectl-get-w"], out.String(), !tc.emptyPath)
		})
	}
}

// checkKubectlWatch checks the kubectl-get-w step's result and the plain
// output (text) against each other; kubectl says which client should
// have run.
func checkKubectlWatch(t *testing.T, res scenarios.StepResult, text string, kubectl bool) {
	t.Helper()
	ev, ok := res.Evidence.(*scenarios.KubectlWatchEvidence)
	if !ok {
		t.Fatalf("evidence %T, want *KubectlWatchEvidence", res.Evidence)
	}
	if ev.Kubectl != kubectl || !strings.Contains(text, "-- the client: "+ev.Client) {
		t.Errorf("client %q (kubectl %v), want kubectl %v, printed", ev.Client, ev.Kubectl, kubectl)
	}
	wantWatch := "/api/v1/namespaces/default/pods?resourceVersion=" + ev.ListRV + "&watch=true"
	if ev.ListRV == "" || ev.WatchURI != wantWatch || ev.ListURI != "/api/v1/namespaces/default/pods?limit=500" {
		t.Errorf("list %q at %q, watch %q; want the list with limit=500, the watch %q", ev.ListURI, ev.ListRV, ev.WatchURI, wantWatch)
	}
	list, watch := traceOf(res.Requests, ev.ListAuditID), traceOf(res.Requests, ev.WatchAuditID)
	if list == nil || watch == nil {
		t.Fatalf("no server trace for the list (%s) or the watch (%s) among %d", ev.ListAuditID, ev.WatchAuditID, len(res.Requests))
	}
	agent := "kubesim-scenario"
	if kubectl {
		agent = "kubectl/"
	}
	for _, tr := range []*flow.RequestTrace{list, watch} {
		if tr.Route != "GET /api/v1/namespaces/{namespace}/pods" || tr.Code != 200 || !strings.HasPrefix(tr.UserAgent, agent) {
			t.Errorf("trace %s: route %q, code %d, agent %q; want the pods list route, 200, %s...", tr.URI, tr.Route, tr.Code, tr.UserAgent, agent)
		}
	}
	// The client's line and the server's, as printed.
	if list.URI != ev.ListURI || watch.URI != ev.WatchURI {
		t.Errorf("the server saw %q and %q, the client logged %q and %q", list.URI, watch.URI, ev.ListURI, ev.WatchURI)
	}
	for _, want := range []string{"/api/v1/namespaces/default/pods?resourceVersion=" + ev.ListRV + "&watch=true\n", "GET " + watch.URI + " → 200", "Audit-Id: " + watch.AuditID} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q\n%s", want, text)
		}
	}
	checkWatchSteps(t, watch, ev.ListRV, len(res.Watch))
	if len(res.Watch) < 2 || res.Watch[0] != "ADDED" || res.Watch[1] != "MODIFIED" || res.FactValue != "list" || res.WatchFrom != ev.ListRV {
		t.Errorf("watch events %v from %q, fact %q; want ADDED, MODIFIED... from the list's %s, fact list", res.Watch, res.WatchFrom, res.FactValue, ev.ListRV)
	}
	if rows := rowsAfterList(ev); len(rows) == 0 || !strings.HasPrefix(rows[0], "ADDED") || strings.Fields(rows[0])[1] != "web" {
		t.Errorf("rows after the list's %d: %q, want web's ADDED first", ev.ListRows, rows)
	}
}

// traceOf returns the trace of the request with auditID.
func traceOf(traces []*flow.RequestTrace, auditID string) *flow.RequestTrace {
	for _, tr := range traces {
		if auditID != "" && tr.AuditID == auditID {
			return tr
		}
	}
	return nil
}

// checkWatchSteps checks the watch's trace: the choice of a watch from
// rv, and at least printed events written.
func checkWatchSteps(t *testing.T, watch *flow.RequestTrace, rv string, printed int) {
	t.Helper()
	var choice, streamed *flow.Step
	for i, st := range watch.Steps {
		switch st.Name {
		case "watch":
			choice = &watch.Steps[i]
		case "streamed":
			streamed = &watch.Steps[i]
		}
	}
	if choice == nil || choice.Fields["resourceVersion"] != rv || choice.Fields["forceWatch"] != "false" {
		t.Errorf("the watch step: %+v; want a watch from %s, not forced", choice, rv)
	}
	if streamed == nil {
		t.Fatalf("the watch's trace has no streamed step: %+v", watch.Steps)
	}
	if n, err := strconv.Atoi(streamed.Fields["events"]); err != nil || n < printed {
		t.Errorf("the server wrote %q events, the client printed %d", streamed.Fields["events"], printed)
	}
}

// rowsAfterList returns the printed rows after the heading and the
// list's rows.
func rowsAfterList(ev *scenarios.KubectlWatchEvidence) []string {
	var rows []string
	for _, l := range ev.Lines {
		if f := strings.Fields(l); len(f) > 0 && f[0] != "EVENT" {
			rows = append(rows, l)
		}
	}
	if len(rows) < ev.ListRows {
		return nil
	}
	return rows[ev.ListRows:]
}
