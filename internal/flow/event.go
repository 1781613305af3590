package flow

import (
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// ObjectRef names the object an event is about. Events of concurrent
// pods are told apart by UID.
type ObjectRef struct {
	APIVersion string    `json:"apiVersion,omitempty"`
	Kind       string    `json:"kind,omitempty"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name,omitempty"`
	UID        types.UID `json:"uid,omitempty"`
}

// Event is one thing a component observed, with its evidence.
type Event struct {
	Stage     Stage     `json:"stage"`
	Component string    `json:"component"` // "apiserver", "scheduler", "kubelet/node-1"
	Object    ObjectRef `json:"object"`
	Time      time.Time `json:"time"`
	Summary   string    `json:"summary"`

	// Evidence: one of these is set.
	Request *RequestTrace `json:"request,omitempty"`
}

// RequestTrace is the life of one API request, step by step, as the API
// server saw it.
type RequestTrace struct {
	AuditID    string   `json:"auditID"`
	Method     string   `json:"method"`
	URI        string   `json:"uri"`
	Proto      string   `json:"proto"` // "HTTP/1.1", "HTTP/2.0"
	RemoteAddr string   `json:"remoteAddr"`
	UserAgent  string   `json:"userAgent,omitempty"`
	User       string   `json:"user,omitempty"`
	Groups     []string `json:"groups,omitempty"`
	Verb       string   `json:"verb,omitempty"`
	// Route is the go-restful route template that matched, e.g.
	// "POST /api/v1/namespaces/{namespace}/pods".
	Route     string        `json:"route,omitempty"`
	Code      int           `json:"code"`
	BytesSent int64         `json:"bytesSent"`
	Duration  time.Duration `json:"duration"`
	Steps     []Step        `json:"steps"`
}

// Step is one step of a request, in the order they happened.
type Step struct {
	// Name is the step: received, goroutine, authenticated, authorized,
	// dispatched, decoded, admission, stored, responded...
	Name string `json:"name"`
	// At is the time since the request was received.
	At time.Duration `json:"at"`
	// Outcome is "ok", "failed", "allowed", "denied", "defaulted",
	// "passed", "rejected"...
	Outcome string `json:"outcome,omitempty"`
	// Detail says what happened, for people.
	Detail string `json:"detail,omitempty"`
	// Fields holds the facts behind Detail (user, route, key, revision...).
	Fields map[string]string `json:"fields,omitempty"`
}
