package scenarios

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// errString describes an error for a failure message: an API error as
// its code, reason and message (`404 NotFound: pods "x" not found`),
// another as its text.
func errString(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		return fmt.Sprintf("%d %s: %s", st.Code, st.Reason, st.Message)
	}
	return err.Error()
}

// resultOf turns the error of an action's request into its step result:
// okStatus for none, the API error's code and text, or (no response) only
// the text.
func resultOf(err error, okStatus int) StepResult {
	if err == nil {
		return StepResult{Status: okStatus}
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return StepResult{Status: int(se.Status().Code), Message: err.Error()}
	}
	return StepResult{Message: err.Error()}
}
