package cluster_test

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/internal/pki"
)

// kubectl over HTTPS: the student's token is refused a create with the
// upstream message, and can-i says no to the student however it is asked.
func TestKubectlAsStudent(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	token, err := c.Authority.Token(pki.Student())
	if err != nil {
		t.Fatal(err)
	}
	manifest := mustWriteFile(t, "pod.yaml", podManifest("web", "nginx:1.27"))

	stderr := k.mustFail(t, "--token="+token, "create", "-f", manifest)
	want := `Error from server (Forbidden): error when creating "` + manifest + `": pods is forbidden: User "student" cannot create resource "pods" in API group "" in the namespace "default"`
	if strings.TrimSpace(stderr) != want {
		t.Errorf("student create:\ngot  %q\nwant %q", strings.TrimSpace(stderr), want)
	}
	for _, args := range [][]string{
		{"auth", "can-i", "create", "pods", "--as", "student"},
		{"--token=" + token, "auth", "can-i", "create", "pods"},
		{"--kubeconfig", c.StudentKubeconfig, "auth", "can-i", "create", "pods"},
	} {
		res := k.run(t, "", args...)
		if res.err == nil || strings.TrimSpace(res.stdout) != "no" {
			t.Errorf("kubectl %v: stdout %q err %v, want \"no\" and a non-zero exit", args, res.stdout, res.err)
		}
	}
	if out := k.must(t, "auth", "can-i", "list", "pods", "--as", "student"); strings.TrimSpace(out) != "yes" {
		t.Errorf("student can-i list pods: %q, want yes", out)
	}
	if res := k.run(t, "", "--kubeconfig", c.StudentKubeconfig, "get", "pods"); res.err != nil || strings.TrimSpace(res.stderr) != "No resources found in default namespace." {
		t.Errorf("student get pods: err %v stderr %q", res.err, res.stderr)
	}
}

// The trace of one kubectl create lists every step of the request in
// order, with the go-restful route; the audit log has its events.
func TestTraceOfKubectlCreate(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	sub := c.Recorder.Subscribe(1000)
	defer sub.Close()
	k := newKubectl(t, c)
	k.must(t, "create", "-f", mustWriteFile(t, "pod.yaml", podManifest("traced", "nginx:1.27")))

	var tr *flow.RequestTrace
	deadline := time.After(waitTimeout)
	for tr == nil {
		select {
		case ev := <-sub.Events():
			if r := ev.Request; r != nil && ev.Stage == 0 && r.Method == "POST" && strings.Contains(r.URI, "/pods") {
				tr = r
			}
		case <-deadline:
			t.Fatal("no trace of the create")
		}
	}
	if tr.Route != "POST /api/v1/namespaces/{namespace}/pods" || tr.Code != 201 || tr.User != "admin" || tr.Proto != "HTTP/2.0" {
		t.Errorf("trace: route %q code %d user %q proto %q", tr.Route, tr.Code, tr.User, tr.Proto)
	}
	var names []string
	for _, s := range tr.Steps {
		names = append(names, s.Name)
	}
	want := []string{"received", "goroutine", "authenticated", "authorized", "aggregator", "kube-apiserver", "dispatched", "decoded", "defaulted",
		"admission", "admission", "admission", "admission", "admission", "admission", "admission", "admission", "admission", "admission", "stored", "responded"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("steps:\ngot  %v\nwant %v", names, want)
	}
	if a := tr.Steps[2]; a.Fields["method"] != "x509" || !strings.Contains(a.Fields["groups"], "system:masters") {
		t.Errorf("authenticated step %+v, want the admin's client certificate", a)
	}

	// audit.log: RequestReceived and ResponseComplete of that request.
	id := tr.AuditID
	var stages []string
	eventually(t, "the create's audit events", func() (bool, string) {
		stages = auditStages(t, filepath.Join(c.DataDir, "logs", "audit.log"), id)
		return strings.Join(stages, " ") == "RequestReceived ResponseComplete", strings.Join(stages, " ")
	})
}

// auditStages returns the stages of the audit events of one request.
func auditStages(tb testing.TB, path, auditID string) []string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var stages []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Kind, APIVersion, Level, AuditID, Stage, Verb string
			User                                          struct{ Username string }
			ObjectRef                                     *struct{ Resource, Namespace, Name string }
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			tb.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		if ev.AuditID != auditID {
			continue
		}
		if ev.Kind != "Event" || ev.APIVersion != "audit.k8s.io/v1" || ev.Level != "Metadata" || ev.Verb != "create" ||
			ev.User.Username != "admin" || ev.ObjectRef == nil || ev.ObjectRef.Resource != "pods" || ev.ObjectRef.Namespace != "default" {
			tb.Errorf("audit event %s", sc.Text())
		}
		stages = append(stages, ev.Stage)
	}
	return stages
}

// auditHasWatchStarted reports whether the audit log shows a watch whose
// request URI starts with prefix reaching ResponseStarted.
func auditHasWatchStarted(tb testing.TB, path, prefix string) bool {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		var ev struct{ Stage, Verb, RequestURI string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Stage == "ResponseStarted" && ev.Verb == "watch" && strings.HasPrefix(ev.RequestURI, prefix) {
			return true
		}
	}
	return false
}
