package main

import (
	_ "embed"
	"fmt"
	"strings"
)

// excludedTSV lists the conformance tests that are not run against
// kubesim: one per line, tab-separated, the test's name, what it needs
// (one of needs) and the upstream call that needs it, file:line in
// k8s.io/kubernetes/test/e2e. Lines starting with # are comments.
//
//go:embed excluded.tsv
var excludedTSV string

// exclusion is why one test is not run.
type exclusion struct {
	Need     string // one of needs
	Evidence string // the call in the test that needs it
}

// needs are the only reasons a test may be excluded: what kubesim does not
// simulate by design. Its kubelets run no process, and pods exchange no
// packets.
var needs = map[string]string{
	"exec":                 "runs a command in a container and needs its result",
	"port-forward":         "forwards a port to a server in a container",
	"program output":       "reads what a program in a container printed",
	"program exit":         "needs a program in a container to exit by itself, with its code",
	"probe":                "a probe answered (or not) by a process in the container",
	"webhook pod":          "an admission or conversion webhook served by a pod",
	"sample-apiserver pod": "an aggregated API server served by a pod",
	"pod network":          "packets between pods, to Services or DNS from a pod",
}

// loadExclusions parses excludedTSV into name → exclusion; a bad line is
// an error naming excluded.tsv:line:col.
func loadExclusions() (map[string]exclusion, error) {
	out := map[string]exclusion{}
	for i, line := range strings.Split(excludedTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			return nil, fmt.Errorf("excluded.tsv:%d:1: want 3 tab-separated fields (name, need, evidence), have %d", i+1, len(f))
		}
		if _, ok := needs[f[1]]; !ok {
			return nil, fmt.Errorf("excluded.tsv:%d:%d: unknown need %q", i+1, len(f[0])+2, f[1])
		}
		if _, dup := out[f[0]]; dup {
			return nil, fmt.Errorf("excluded.tsv:%d:1: %q is listed twice", i+1, f[0])
		}
		out[f[0]] = exclusion{Need: f[1], Evidence: f[2]}
	}
	return out, nil
}
