package flow

import (
	"fmt"
	"io"
	"time"
)

// WriteTrace writes a request trace for people: a header line with the
// request, the route and the outcome, then one line per step with its
// offset from the moment the request arrived.
func WriteTrace(w io.Writer, t *RequestTrace) error {
	route := t.Route
	if route == "" {
		route = "(no route)"
	}
	user := t.User
	if user == "" {
		user = "(unauthenticated)"
	}
	if _, err := fmt.Fprintf(w, "%s %s  %s  user %s  route %s  → %d, %d bytes in %s\n",
		t.Method, t.URI, t.Proto, user, route, t.Code, t.BytesSent, round(t.Duration)); err != nil {
		return err
	}
	for _, s := range t.Steps {
		if _, err := fmt.Fprintf(w, "  %9s  %-13s %-9s %s\n", "+"+round(s.At).String(), s.Name, s.Outcome, s.Detail); err != nil {
			return err
		}
	}
	return nil
}

// round shortens a duration for reading: microseconds below a
// millisecond, else a tenth of a millisecond.
func round(d time.Duration) time.Duration {
	if d < time.Millisecond {
		return d.Round(time.Microsecond)
	}
	return d.Round(100 * time.Microsecond)
}
