package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// OpenLog creates the file 0600, appends to what is there, and ends
// a torn last line before anything else is written.
func TestOpenAuditLog(t *testing.T) {
	tests := []struct {
		name   string
		before *string // nil: no file
		want   string  // after one event {"a":1}
	}{
		{name: "missing", want: "{\"a\":1}\n"},
		{name: "empty", before: new(""), want: "{\"a\":1}\n"},
		{name: "whole lines", before: new("{\"x\":1}\n"), want: "{\"x\":1}\n{\"a\":1}\n"},
		{name: "torn last line", before: new("{\"x\":1}\n{\"kind\":\"Ev"), want: "{\"x\":1}\n{\"kind\":\"Ev\n{\"a\":1}\n"},
		{name: "torn only line", before: new("{"), want: "{\n{\"a\":1}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "audit.log")
			if tt.before != nil {
				if err := os.WriteFile(path, []byte(*tt.before), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			f, err := OpenLog(path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.Write([]byte("{\"a\":1}\n")); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("file %q, want %q", got, tt.want)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if tt.before == nil && fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

func TestOpenAuditLogError(t *testing.T) {
	_, err := OpenLog(filepath.Join(t.TempDir(), "no-such-dir", "audit.log"))
	if !errors.Is(err, os.ErrNotExist) || !strings.HasPrefix(err.Error(), "apiserver: audit log: ") {
		t.Errorf("error %v", err)
	}
}

// writeRecorder records each Write call.
type writeRecorder struct {
	mu     sync.Mutex
	writes [][]byte
	err    error
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, bytes.Clone(p))
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Each event is one Write of one whole JSON line, made before write
// returns, from many goroutines at once.
func TestAuditLogWritesEachEventAtOnce(t *testing.T) {
	rec := &writeRecorder{}
	l := NewLog(rec, log.New(&bytes.Buffer{}, "", 0))
	const n = 200
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			l.Write(&Event{Kind: "Event", AuditID: strings.Repeat("x", i)})
		})
	}
	wg.Wait()
	l.Write(&Event{Kind: "Event", AuditID: "last"})
	if len(rec.writes) != n+1 {
		t.Fatalf("%d writes after %d events returned", len(rec.writes), n+1)
	}
	for i, w := range rec.writes {
		var ev Event
		if bytes.IndexByte(w, '\n') != len(w)-1 || json.Unmarshal(w, &ev) != nil {
			t.Fatalf("write %d is not one JSON line: %q", i, w)
		}
	}
	if last := rec.writes[n]; !bytes.Contains(last, []byte(`"auditID":"last"`)) {
		t.Errorf("last write %q", last)
	}
}

// A failed write is logged, and the next event is written.
func TestAuditLogWriteError(t *testing.T) {
	rec := &writeRecorder{err: errors.New("disk full")}
	var logged bytes.Buffer
	l := NewLog(rec, log.New(&logged, "", 0))
	l.Write(&Event{AuditID: "a1"})
	if !strings.Contains(logged.String(), "audit: writing event a1: disk full") {
		t.Errorf("logged %q", logged.String())
	}
	rec.err = nil
	l.Write(&Event{AuditID: "a2"})
	if len(rec.writes) != 2 {
		t.Errorf("%d writes", len(rec.writes))
	}
}

// BenchmarkAuditLogWrite measures one event written to a file: the JSON
// encoding and one write(2), which a request pays two or three times.
func BenchmarkAuditLogWrite(b *testing.B) {
	f, err := OpenLog(filepath.Join(b.TempDir(), "audit.log"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	l := NewLog(f, log.New(&bytes.Buffer{}, "", 0))
	ev := &Event{Kind: "Event", APIVersion: "audit.k8s.io/v1", Level: "Metadata", AuditID: "5f0e9c1a-8d1e-4c39-9d6e-2b7f2c1f4a10",
		Stage: StageResponseComplete, RequestURI: "/api/v1/namespaces/default/pods", Verb: "create",
		User: User{Username: "kubesim-admin", Groups: []string{"system:masters", "system:authenticated"}}, SourceIPs: []string{"127.0.0.1"},
		UserAgent: "kubectl/v1.37.2 (linux/amd64) kubernetes/abcdef0", ObjectRef: &ObjectRef{Resource: "pods", Namespace: "default", Name: "web-1", APIVersion: "v1"},
		Annotations: map[string]string{"authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": ""}}
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Write(ev)
		}
	})
}
