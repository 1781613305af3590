package flow

import (
	"fmt"
	"strings"
)

// Bounds of what a Brief layout shows of a request.
const (
	briefDetail = 600 // bytes of a step's detail: whole but for the rare long one (a narration may point at any of it: the defaults set, the admission plugins)
	briefURI    = 100 // bytes of a URI in a request's summary line
)

// request lays out a request trace: the request, who sent it, the route
// go-restful matched, each step and the outcome. Brief writes the
// outcome last and only once there is one; Full writes it first (or
// that the request is still in progress), then the steps numbered, each
// with its detail on a line below.
func (l Layout) request(ev Event, _ Context) []Line {
	r := ev.Request
	if l.Form == Brief {
		return l.briefRequest(r, ev.Component)
	}
	out := []Line{
		line(RoleHeading, 2, fmt.Sprintf("%s %s  %s", r.Method, r.URI, r.Proto)),
		line(RoleField, 2, l.printf("user_groups", l.user(r), strings.Join(r.Groups, ","))),
	}
	if r.Route != "" {
		out = append(out, line(RoleField, 2, l.word("route")+" "+r.Route))
	}
	switch {
	case r.Code >= 400:
		out = append(out, line(RoleFailed, 2, l.responded(r)))
	case r.Code != 0:
		out = append(out, line(RoleOK, 2, l.responded(r)))
	default:
		out = append(out, line(RoleWarning, 2, "… "+l.word("in_progress")))
	}
	for i, s := range r.Steps {
		role := RoleField
		switch s.Outcome {
		case "failed", "denied", "rejected":
			role = RoleFailed
		}
		out = append(out, line(role, 0, fmt.Sprintf("%d %-8s %s %s", i+1, "+"+FormatDuration(s.At), Pad(l.stepName(s), 13), l.translated(outcomes, s.Outcome))))
		if s.Detail != "" {
			out = append(out, line(RoleNote, 4, "    "+l.stepDetail(r, s)))
		}
	}
	return out
}

// briefRequest is request's Brief form.
func (l Layout) briefRequest(r *RequestTrace, component string) []Line {
	user := l.user(r)
	if len(r.Groups) > 0 {
		user += " [" + strings.Join(r.Groups, ", ") + "]"
	}
	out := []Line{
		line(RoleHeading, 0, fmt.Sprintf("%s %s  %s  (%s)", r.Method, r.URI, r.Proto, component)),
		field(Pad(l.word("user"), 7) + user),
	}
	if r.Route != "" {
		out = append(out, field(Pad(l.word("route"), 7)+r.Route))
	}
	out = append(out, l.briefSteps(r)...)
	if r.Code != 0 {
		out = append(out, field(l.responded(r)))
	}
	return out
}

// RequestSummary lays out a request on one line, Brief: method, URI,
// status, and who sent it to which route in how long; with steps, the
// trace's steps follow, one line each, indented by two spaces more.
// Every Line is Printable.
func (l Layout) RequestSummary(r *RequestTrace, steps bool) []Line {
	route := r.Route
	if route == "" {
		route = l.word("no_route")
	}
	out := []Line{field(fmt.Sprintf("%s %s → %d  (%s %s, %s, %s)", r.Method, Truncate(r.URI, briefURI), r.Code,
		l.word("as"), l.user(r), route, FormatDuration(r.Duration)))}
	if chain := l.chainLine(r); chain != "" && !steps {
		out = append(out, field("  "+chain))
	}
	if steps {
		out = append(out, l.briefSteps(r)...)
	}
	return printable(out)
}

// chainLine is the path of r through the servers of the delegation
// chain, "aggregator delegated → kube-apiserver served", or "" for a
// trace without hops (a request that failed before, in authentication).
func (l Layout) chainLine(r *RequestTrace) string {
	var hops []string
	for _, s := range r.Steps {
		if s.Fields["hop"] == "" {
			continue
		}
		hops = append(hops, l.stepName(s)+" "+l.translated(outcomes, s.Fields["hop"]))
	}
	return strings.Join(hops, " → ")
}

// briefSteps are a trace's steps in the Brief form: the offset, the
// step, its outcome and its detail, cut short.
func (l Layout) briefSteps(r *RequestTrace) []Line {
	out := make([]Line, 0, len(r.Steps))
	for _, s := range r.Steps {
		out = append(out, field("  "+l.stepLine(r, s, briefDetail)))
	}
	return out
}

// stepLine is one step of r on one line, its detail cut at max bytes
// (0: not cut).
func (l Layout) stepLine(r *RequestTrace, s Step, max int) string {
	detail := l.stepDetail(r, s)
	if max > 0 {
		detail = Truncate(detail, max)
	}
	return fmt.Sprintf("%9s  %s %s %s", "+"+FormatDuration(s.At), Pad(l.stepName(s), 13), Pad(l.translated(outcomes, s.Outcome), 9), detail)
}

// stepName is s's name in l's language.
func (l Layout) stepName(s Step) string { return l.translated(stepNames, s.Name) }

// user is who sent r, or that nobody authenticated it.
func (l Layout) user(r *RequestTrace) string {
	if r.User == "" {
		return l.word("unauthenticated")
	}
	return r.User
}

// responded is r's outcome: status, bytes, duration.
func (l Layout) responded(r *RequestTrace) string {
	return l.printf("responded", r.Code, r.BytesSent, FormatDuration(r.Duration))
}
