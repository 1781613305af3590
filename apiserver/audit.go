package apiserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Audit stages, as audit.k8s.io/v1 names them.
const (
	auditRequestReceived  = "RequestReceived"
	auditResponseStarted  = "ResponseStarted"
	auditResponseComplete = "ResponseComplete"
)

// auditEvent is one line of the audit log, in audit.k8s.io/v1's Event
// schema at level Metadata, so that it reads like a real cluster's.
type auditEvent struct {
	Kind                     string            `json:"kind"`
	APIVersion               string            `json:"apiVersion"`
	Level                    string            `json:"level"`
	AuditID                  string            `json:"auditID"`
	Stage                    string            `json:"stage"`
	RequestURI               string            `json:"requestURI"`
	Verb                     string            `json:"verb"`
	User                     auditUser         `json:"user"`
	ImpersonatedUser         *auditUser        `json:"impersonatedUser,omitempty"`
	SourceIPs                []string          `json:"sourceIPs,omitempty"`
	UserAgent                string            `json:"userAgent,omitempty"`
	ObjectRef                *auditObjectRef   `json:"objectRef,omitempty"`
	ResponseStatus           *metav1.Status    `json:"responseStatus,omitempty"`
	RequestReceivedTimestamp metav1.MicroTime  `json:"requestReceivedTimestamp"`
	StageTimestamp           metav1.MicroTime  `json:"stageTimestamp"`
	Annotations              map[string]string `json:"annotations,omitempty"`
}

type auditUser struct {
	Username string   `json:"username"`
	Groups   []string `json:"groups,omitempty"`
}

type auditObjectRef struct {
	Resource    string `json:"resource,omitempty"`
	Namespace   string `json:"namespace,omitempty"`
	Name        string `json:"name,omitempty"`
	APIGroup    string `json:"apiGroup,omitempty"`
	APIVersion  string `json:"apiVersion,omitempty"`
	Subresource string `json:"subresource,omitempty"`
}

// auditFlushInterval bounds how long an audit event waits in the buffer.
const auditFlushInterval = 100 * time.Millisecond

// auditLog writes audit events as JSON lines through a buffer that
// flushLoop empties regularly (one write per batch, not per event). A nil
// *auditLog writes nothing. Safe for concurrent use.
type auditLog struct {
	mu  sync.Mutex
	buf *bufio.Writer
}

func newAuditLog(w io.Writer) *auditLog {
	return &auditLog{buf: bufio.NewWriterSize(w, 64<<10)}
}

func (l *auditLog) write(ev *auditEvent) {
	if l == nil {
		return
	}
	data, err := json.Marshal(ev)
	if err != nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = l.buf.Write(append(data, '\n'))
}

func (l *auditLog) flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	_ = l.buf.Flush()
}

// flushLoop flushes the buffer every auditFlushInterval until ctx is done,
// and once more at the end.
func (l *auditLog) flushLoop(ctx context.Context) {
	t := time.NewTicker(auditFlushInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			l.flush()
			return
		case <-t.C:
			l.flush()
		}
	}
}

// sourceIPs lists the client's address (and X-Forwarded-For, which
// kubesim does not trust for anything else).
func sourceIPs(r *http.Request) []string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return []string{host}
}

func microNow() metav1.MicroTime { return metav1.NewMicroTime(time.Now()) }
