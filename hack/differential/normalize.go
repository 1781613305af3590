package main

import (
	"regexp"
	"sort"
	"strings"
)

// normalizer rewrites what varies between two servers, or two runs, in
// the texts compared (messages, causes, warnings, values, names):
//
//  1. the values of the target's variables at least minVarLen long (the
//     run's id and namespace, saved UIDs, tokens, continue tokens) become
//     {their name}, longest first;
//  2. then the rules below, in order.
//
// Shapes hold no values, so they need none of this.
type normalizer struct {
	vars [][2]string // value, {name}; longest value first
}

// minVarLen keeps short variables (resourceVersions: "42") from being
// replaced inside unrelated numbers.
const minVarLen = 6

// rules are the normalization rules, each a pattern and its replacement.
var rules = []struct{ re, with string }{
	// UIDs (uuid v4) the corpus did not save.
	{`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`, "<uid>"},
	// Times (creationTimestamp and the like) in RFC 3339.
	{`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`, "<time>"},
	// Loopback ports: each server listens on a free one.
	{`\b127\.0\.0\.1:\d+\b`, "127.0.0.1:<port>"},
	// resourceVersions in messages: "too old resource version: 5 (812)",
	// "Too large resource version: 9, current: 315", "the ResourceVersion
	// in record (310)", "ResourceVersion in object meta: 1549".
	{`(?i)(resource ?version[a-z ]*:? \(?"?)\d+`, "$1<rv>"},
	{`(\(|current: )\d+\b`, "$1<rv>"},
	// Names made from the corpus's generateName "gen-": five random
	// characters follow it.
	{`\bgen-[a-z0-9]{5}\b`, "gen-<suffix>"},
	// PEM blocks (certificates, CA bundles).
	{`-----BEGIN [A-Z ]+-----[^-]*-----END [A-Z ]+-----(\\n)?`, "<pem>"},
}

// compiled are rules, compiled once.
var compiled = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(rules))
	for i, r := range rules {
		out[i] = regexp.MustCompile(r.re)
	}
	return out
}()

// newNormalizer is the normalizer of a target whose variables are vars.
func newNormalizer(vars map[string]string) normalizer {
	var n normalizer
	for k, v := range vars {
		if len(v) >= minVarLen {
			n.vars = append(n.vars, [2]string{v, "{" + k + "}"})
		}
	}
	sort.Slice(n.vars, func(i, j int) bool {
		if len(n.vars[i][0]) != len(n.vars[j][0]) {
			return len(n.vars[i][0]) > len(n.vars[j][0])
		}
		return n.vars[i][1] < n.vars[j][1]
	})
	return n
}

// text is s normalized.
func (n normalizer) text(s string) string {
	for _, v := range n.vars {
		s = strings.ReplaceAll(s, v[0], v[1])
	}
	for i, re := range compiled {
		s = re.ReplaceAllString(s, rules[i].with)
	}
	return s
}
