package admission

import (
	"context"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Outcome phases.
const (
	PhaseMutating   = "mutating"
	PhaseValidating = "validating"
)

// Chain runs admission plugins in order: Admit runs the mutating ones,
// Validate the validating ones (kube-apiserver runs every mutating plugin,
// then validation of the object, then every validating plugin). The zero
// value, and a nil *Chain, admit everything. A Chain is safe for concurrent
// use if its plugins are; it must not be changed while in use.
type Chain struct {
	Mutating   []MutatingPlugin
	Validating []ValidatingPlugin
}

// Admit runs every mutating plugin that handles a's operation on a, in
// order, and returns one Outcome per plugin run. It stops at the first
// plugin that fails: that plugin's Outcome is "rejected" and later
// plugins are not run (and have no Outcome). The error is an API status error, see Validate.
func (c *Chain) Admit(ctx context.Context, a *Attributes) ([]Outcome, error) {
	if c == nil {
		return nil, nil
	}
	outcomes := make([]Outcome, 0, len(c.Mutating))
	for _, p := range c.Mutating {
		if !p.Handles(a.Operation) {
			continue
		}
		fields, handled, err := p.Admit(ctx, a)
		o, err := outcome(p.Name(), PhaseMutating, fields, handled, err)
		outcomes = append(outcomes, o)
		if err != nil {
			return outcomes, err
		}
	}
	return outcomes, nil
}

// Validate runs every validating plugin that handles a's operation on a,
// in order, as Admit does.
//
// A plugin's error is returned as it is when it is an API status error
// (apierrors.APIStatus), which is what every plugin here returns. Any other
// error becomes the Status kube-apiserver answers such an error with:
// 500, reason empty ("Unknown"), and the error's text as the message (its
// admission chain passes plugin errors on unchanged and its HTTP layer
// turns a plain error into exactly that; it does not make it an
// InternalError).
func (c *Chain) Validate(ctx context.Context, a *Attributes) ([]Outcome, error) {
	if c == nil {
		return nil, nil
	}
	outcomes := make([]Outcome, 0, len(c.Validating))
	for _, p := range c.Validating {
		if !p.Handles(a.Operation) {
			continue
		}
		handled, err := p.Validate(ctx, a)
		o, err := outcome(p.Name(), PhaseValidating, nil, handled, err)
		outcomes = append(outcomes, o)
		if err != nil {
			return outcomes, err
		}
	}
	return outcomes, nil
}

// outcome describes one plugin's result and returns its error as an API
// status error.
func outcome(name, phase string, fields []string, handled bool, err error) (Outcome, error) {
	o := Outcome{Plugin: name, Phase: phase}
	switch {
	case err != nil:
		err = asStatusError(err)
		o.Action = ActionRejected
		o.Message = err.Error()
	case !handled:
		o.Action = ActionSkipped
	case len(fields) > 0:
		o.Action = ActionDefaulted
		o.Fields = fields
	default:
		o.Action = ActionPassed
	}
	return o, err
}

// asStatusError leaves API status errors alone and turns any other error
// into the 500 Status kube-apiserver answers it with.
func asStatusError(err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}

// newForbidden is the 403 a plugin rejects a request with, built as
// kube-apiserver's admission.NewForbidden builds it: "<resource> "<name>"
// is forbidden: <reason>", where the resource is the request's (without
// subresource) and the name the request's, else the object's name or
// generateName. A Forbidden error is returned unchanged.
func newForbidden(a *Attributes, reason error) error {
	if apierrors.IsForbidden(reason) {
		return reason
	}
	return apierrors.NewForbidden(a.Resource.GroupResource(), requestName(a), reason)
}

// requestName is the name admission errors quote.
func requestName(a *Attributes) string {
	if a.Name != "" {
		return a.Name
	}
	if a.Object == nil {
		return "Unknown"
	}
	m, err := meta.Accessor(a.Object)
	switch {
	case err != nil:
		return "Unknown/errorGettingName"
	case m.GetName() != "":
		return m.GetName()
	case m.GetGenerateName() != "":
		return m.GetGenerateName()
	}
	return "Unknown"
}
