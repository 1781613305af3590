package flow

import (
	"fmt"
	"io"
)

// WriteTrace writes a request trace for people, in English: a header
// line with the request, the route and the outcome, then one line per
// step with its offset from the moment the request arrived and its whole
// detail (the step lines of a Brief layout, not cut). What it writes is
// Printable.
func WriteTrace(w io.Writer, t *RequestTrace) error {
	var l Layout
	route := t.Route
	if route == "" {
		route = "(no route)"
	}
	if _, err := fmt.Fprintf(w, "%s\n", Printable(fmt.Sprintf("%s %s  %s  user %s  route %s  → %d, %d bytes in %s",
		t.Method, t.URI, t.Proto, l.user(t), route, t.Code, t.BytesSent, FormatDuration(t.Duration)))); err != nil {
		return err
	}
	for _, s := range t.Steps {
		if _, err := fmt.Fprintf(w, "  %s\n", Printable(l.stepLine(t, s, 0))); err != nil {
			return err
		}
	}
	return nil
}
