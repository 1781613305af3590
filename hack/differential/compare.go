package main

import (
	"fmt"
	"slices"
	"strings"
)

// finding is one way in which the two answers to a request differ.
type finding struct {
	what          string // "code", "status.message", "shape", ...
	kubesim, peer string
}

// compare lists how kubesim's answer differs from the peer's.
func compare(k, p answer) []finding {
	var f []finding
	add := func(what, kv, pv string) {
		if kv != pv {
			f = append(f, finding{what, kv, pv})
		}
	}
	add("transport error", k.err, p.err)
	add("code", fmt.Sprint(k.code), fmt.Sprint(p.code))
	add("Content-Type", k.mediaType, p.mediaType)
	add("Warning headers", strings.Join(k.warnings, "\n"), strings.Join(p.warnings, "\n"))
	f = append(f, compareStatus(k.status, p.status)...)
	add("values", strings.Join(k.values, "\n"), strings.Join(p.values, "\n"))
	add("watch events", strings.Join(k.events, "\n"), strings.Join(p.events, "\n"))
	ko, po := onlyIn(k.shape, p.shape), onlyIn(p.shape, k.shape)
	if len(ko)+len(po) > 0 {
		f = append(f, finding{"shape (paths only one side has)", strings.Join(ko, "\n"), strings.Join(po, "\n")})
	}
	return f
}

// compareStatus compares two Status bodies' fields (nil: not a Status).
func compareStatus(k, p *statusView) []finding {
	switch {
	case k == nil && p == nil:
		return nil
	case k == nil || p == nil:
		return []finding{{"body kind", isStatus(k), isStatus(p)}}
	}
	var f []finding
	for _, c := range []struct{ what, kv, pv string }{
		{"status.status", k.Status, p.Status},
		{"status.reason", k.Reason, p.Reason},
		{"status.code", fmt.Sprint(k.Code), fmt.Sprint(p.Code)},
		{"status.message", k.Message, p.Message},
		{"status.details.kind", k.Kind, p.Kind},
		{"status.details.name", k.Name, p.Name},
		{"status.details.group", k.Group, p.Group},
		{"status.details.causes", strings.Join(k.Causes, "\n"), strings.Join(p.Causes, "\n")},
	} {
		if c.kv != c.pv {
			f = append(f, finding{c.what, c.kv, c.pv})
		}
	}
	return f
}

// isStatus names what a body is, for a Status on one side only.
func isStatus(s *statusView) string {
	if s == nil {
		return "not a Status"
	}
	return "Status"
}

// onlyIn are the entries of a (sorted) that b lacks.
func onlyIn(a, b []string) []string {
	var out []string
	for _, s := range a {
		if _, found := slices.BinarySearch(b, s); !found {
			out = append(out, s)
		}
	}
	return out
}
