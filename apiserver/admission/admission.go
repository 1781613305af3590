package admission

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Operation is the kind of write being admitted.
type Operation string

// Operations.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
	Delete Operation = "DELETE"
)

// UserInfo is who makes the request.
type UserInfo struct {
	Name   string
	Groups []string
}

// Attributes describe one write. Object is the object as it would be
// stored (mutating plugins may change it); OldObject is the stored one for
// updates and deletes (read-only).
type Attributes struct {
	Operation   Operation
	Kind        schema.GroupVersionKind
	Resource    schema.GroupVersionResource
	Subresource string
	Namespace   string
	Name        string
	Object      runtime.Object
	OldObject   runtime.Object
	User        UserInfo
	DryRun      bool
}

// Outcome is what one plugin did to one request, for the trace.
type Outcome struct {
	// Plugin is the plugin's name, e.g. "DefaultTolerationSeconds".
	Plugin string
	// Phase is "mutating" or "validating".
	Phase string
	// Action is "defaulted" (it changed the object), "passed" (it looked
	// and let the request through unchanged), "skipped" (the request is
	// not its business) or "rejected".
	Action string
	// Fields lists what a mutating plugin set, as field paths with their
	// new value, e.g. "spec.priority=0".
	Fields []string
	// Message explains a rejection (the error's message).
	Message string
}

// Outcome actions.
const (
	ActionDefaulted = "defaulted"
	ActionPassed    = "passed"
	ActionSkipped   = "skipped"
	ActionRejected  = "rejected"
)

// MutatingPlugin may change the object before it is validated and stored.
// It returns the fields it set (nil: nothing changed). handled=false means
// the request is not its business (Outcome "skipped").
type MutatingPlugin interface {
	Name() string
	// Handles reports whether the plugin handles op at all: the Chain
	// does not run it on other operations (no Outcome), as
	// kube-apiserver's chain skips a plugin whose Handles is false.
	Handles(op Operation) bool
	Admit(ctx context.Context, a *Attributes) (fields []string, handled bool, err error)
}

// ValidatingPlugin accepts or rejects a request without changing it.
// handled=false means the request is not its business.
type ValidatingPlugin interface {
	Name() string
	Handles(op Operation) bool // as MutatingPlugin's
	Validate(ctx context.Context, a *Attributes) (handled bool, err error)
}
