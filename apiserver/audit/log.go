// Package audit writes the audit log: audit.k8s.io/v1 events, one JSON
// line each, to a file that may rotate as kube-apiserver's --audit-log-max*
// flags say. Package filters makes the events of each request.
package audit

import (
	"fmt"
	"io"
	"log"
	"os"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Audit stages, as audit.k8s.io/v1 names them.
const (
	StageRequestReceived  = "RequestReceived"
	StageResponseStarted  = "ResponseStarted"
	StageResponseComplete = "ResponseComplete"
)

// Event is one line of the audit log, in audit.k8s.io/v1's Event
// schema at level Metadata, so that it reads like a real cluster's.
type Event struct {
	Kind                     string            `json:"kind"`
	APIVersion               string            `json:"apiVersion"`
	Level                    string            `json:"level"`
	AuditID                  string            `json:"auditID"`
	Stage                    string            `json:"stage"`
	RequestURI               string            `json:"requestURI"`
	Verb                     string            `json:"verb"`
	User                     User              `json:"user"`
	ImpersonatedUser         *User             `json:"impersonatedUser,omitempty"`
	SourceIPs                []string          `json:"sourceIPs,omitempty"`
	UserAgent                string            `json:"userAgent,omitempty"`
	ObjectRef                *ObjectRef        `json:"objectRef,omitempty"`
	ResponseStatus           *metav1.Status    `json:"responseStatus,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime  `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime  `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

type User struct {
	Username string              `json:"username"`
	UID      string              `json:"uid,omitempty"`
	Groups   []string            `json:"groups,omitempty"`
	Extra    map[string][]string `json:"extra,omitempty"`
}

type ObjectRef struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// Log writes each audit event as one JSON line, with one Write call
// on the underlying writer, before write returns: kube-apiserver's
// blocking mode (--audit-log-mode=blocking, its default for the log
// backend). Nothing waits in a user-space buffer, so an event written to
// a file survives a kill -9 of the process once write returns. A failed
// write is logged and does not fail the request, as in blocking mode. A
// nil *Log writes nothing. Safe for concurrent use; lines never
// interleave.
type Log struct {
	errorLog *log.Logger

	mu sync.Mutex
	w  io.Writer
}

func NewLog(w io.Writer, errorLog *log.Logger) *Log {
	return &Log{w: w, errorLog: errorLog}
}

func (l *Log) Write(ev *Event) {
	if l == nil {
		return
	}
	data, err := ev.appendJSON(make([]byte, 0, 512))
	if err != nil {
		l.errorLog.Printf("audit: encoding event %s: %v", ev.AuditID, err)
		return
	}
	data = append(data, '\n')
	l.mu.Lock()
	_, err = l.w.Write(data)
	l.mu.Unlock()
	if err != nil {
		l.errorLog.Printf("audit: writing event %s: %v", ev.AuditID, err)
	}
}

// OpenLog opens the audit log file at path for appending, creating it
// with mode 0600 if it does not exist (as kube-apiserver's
// --audit-log-path does), for Config.AuditLog. If the file's last line is
// torn (does not end in a newline, as a crash in the middle of a write
// leaves it), OpenLog ends that line first, so that every event
// written afterwards is a line of its own; the torn line is kept as it
// is. The caller closes the file.
func OpenLog(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("apiserver: audit log: %w", err)
	}
	if err := endTornLine(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("apiserver: audit log %s: %w", path, err)
	}
	return f, nil
}

// endTornLine appends a newline to f unless f is empty or already ends in
// one. f must be open for reading and appending.
func endTornLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}
