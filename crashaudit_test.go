package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// createPods creates pods named prefix-<client>-<i> from clients
// goroutines until stop is closed, and returns the names whose creation
// was acknowledged (201) on acked, as they are.
func createPods(c kubernetes.Interface, prefix string, clients int, stop <-chan struct{}, acked chan<- string) *sync.WaitGroup {
	var wg sync.WaitGroup
	for g := range clients {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-%d-%d", prefix, g, i)},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}},
				}
				if _, err := c.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
					return // the server is gone
				}
				acked <- pod.Name
			}
		})
	}
	return &wg
}

// auditLine is what the test reads of an audit event.
type auditLine struct {
	Stage, Verb string
	ObjectRef   *struct{ Resource, Name string }
	Response    *struct{ Code int } `json:"responseStatus"`
}

// readAuditLog parses the audit log: the names of the pods whose create
// has a ResponseComplete record with status 201, and the torn part after
// the last newline (empty if none). Every whole line must parse.
func readAuditLog(tb testing.TB, path string) (created map[string]bool, torn string) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	torn = lines[len(lines)-1]
	created = map[string]bool{}
	for i, line := range lines[:len(lines)-1] {
		var ev auditLine
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			if !strings.Contains(line, tornMarker) {
				tb.Errorf("audit.log line %d does not parse: %v: %q", i+1, err, line)
			}
			continue
		}
		if ev.Stage == "ResponseComplete" && ev.Verb == "create" && ev.ObjectRef != nil && ev.ObjectRef.Resource == "pods" && ev.Response != nil && ev.Response.Code == 201 {
			created[ev.ObjectRef.Name] = true
		}
	}
	return created, torn
}

// tornMarker starts the torn line the test leaves at the end of the log.
const tornMarker = `{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":"torn-by-the-test`

// After a kill -9 of `kubesim serve` in the middle of a burst of pod
// creates, audit.log has the ResponseComplete record of every create the
// API acknowledged. A torn last line (as a crash mid-write leaves) is
// ended when the server starts again: the records after it parse.
func TestAuditLogSurvivesKill9(t *testing.T) {
	dir := t.TempDir()
	auditPath := filepath.Join(dir, "logs", "audit.log")
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitTimeout)
	const wantAcked = 60
	stop, acked := make(chan struct{}), make(chan string, 1024)
	wg := createPods(mustClientFor(t, filepath.Join(dir, "kubeconfig")), "burst", 8, stop, acked)
	// However slow the machine, creates keep being acknowledged: the
	// wait fails only when none is for waitfor.Stall.
	var names []string
	stall := time.NewTimer(waitfor.Stall)
	defer stall.Stop()
	for len(names) < wantAcked {
		select {
		case name := <-acked:
			names = append(names, name)
			stall.Reset(waitfor.Stall)
		case <-stall.C:
			t.Fatalf("%d creates acknowledged, then none for %v; stderr:\n%s", len(names), waitfor.Stall, p.stderr)
		}
	}
	p.signal(syscall.SIGKILL) // creates are still in flight
	p.wait(waitTimeout)
	close(stop)
	go func() { wg.Wait(); close(acked) }()
	for name := range acked {
		names = append(names, name)
	}
	created, torn := readAuditLog(t, auditPath)
	for _, name := range names {
		if !created[name] {
			t.Errorf("no ResponseComplete record for the acknowledged create of %s", name)
		}
	}
	t.Logf("%d creates acknowledged before and around the kill, %d complete creates in the log; torn tail %q", len(names), len(created), torn)

	// A torn last line: the server ends it when it starts again.
	f, err := os.OpenFile(auditPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(tornMarker); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p = startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitTimeout)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "after-restart"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx:1.27"}}}}
	if _, err := mustClientFor(t, filepath.Join(dir, "kubeconfig")).CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create after the restart: %v; stderr:\n%s", err, p.stderr)
	}
	p.signal(syscall.SIGKILL)
	p.wait(waitTimeout)
	data, err := os.ReadFile(auditPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(torn+tornMarker+"\n")) {
		t.Errorf("the torn line is not followed by a newline")
	}
	if created, _ := readAuditLog(t, auditPath); !created["after-restart"] {
		t.Errorf("no ResponseComplete record of the create after the restart")
	}
}
