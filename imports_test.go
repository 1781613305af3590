package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/kubesim/kubesim"

// pkgInfo is what `go list -json` says of one package of the module.
type pkgInfo struct {
	ImportPath string
	Imports    []string // direct, non-test
	Deps       []string // transitive, non-test
}

// modulePackages lists the module's packages with their imports, from
// `go list -deps -json ./...` (test files not included).
func modulePackages(t *testing.T) map[string]pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string]pkgInfo{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkgInfo
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.ImportPath == module || strings.HasPrefix(p.ImportPath, module+"/") {
			pkgs[rel(p.ImportPath)] = p
		}
	}
	return pkgs
}

// rel is a package path inside the module ("" for the root).
func rel(path string) string {
	return strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// ours keeps the module's packages of paths, relative.
func ours(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p == module || strings.HasPrefix(p, module+"/") {
			out = append(out, rel(p))
		}
	}
	return out
}

// components are the packages that run a part of the control plane.
var components = []string{"apiserver", "scheduler", "kubelet", "controllers", "metricsserver"}

// chainServers are the servers of the API server's delegation chain.
var chainServers = []string{"apiserver/aggregatorserver", "apiserver/kubeapiserver", "apiserver/apiextensionsserver"}

// importRules checks the dependency rules of docs/architecture.md ("The
// process") and returns every breach, one line each.
func importRules(pkgs map[string]pkgInfo) []string {
	var bad []string
	report := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	for name, p := range pkgs {
		deps, direct := ours(p.Deps), ours(p.Imports)
		// API clients reach the API server only over HTTP.
		for _, client := range []string{"scheduler", "kubelet", "tui", "controllers", "metricsserver"} {
			if under(name, client) {
				for _, d := range deps {
					if under(d, "apiserver") {
						report("%s depends on %s: %s talks to the API server only through its HTTP API", name, d, client)
					}
				}
			}
		}
		// The scenario engine reaches the components only through the assembler.
		if under(name, "scenarios") {
			for _, d := range direct {
				if under(d, "apiserver") || under(d, "scheduler") || under(d, "kubelet") || under(d, "controllers") {
					report("%s imports %s: scenarios reach the components only through cluster", name, d)
				}
			}
		}
		// Ground packages import no component.
		if under(name, "internal") {
			for _, d := range deps {
				for _, c := range append(slices.Clone(components), "cluster", "scenarios", "tui") {
					if under(d, c) {
						report("%s depends on %s: internal/ packages import no component", name, d)
					}
				}
			}
		}
		// The servers of the chain are built only by serverchain, and
		// each knows its delegate only as an http.Handler.
		for _, d := range direct {
			if slices.Contains(chainServers, d) && name != "apiserver/serverchain" {
				report("%s imports %s: only apiserver/serverchain builds the servers of the chain", name, d)
			}
		}
		// The filters and a request's context sit below the generic server.
		if under(name, "apiserver/filters") || under(name, "apiserver/request") {
			for _, d := range deps {
				if d == "apiserver" {
					report("%s depends on apiserver: the generic server builds on the filters, not the other way", name)
				}
			}
		}
		// Only the assembler and main wire components together.
		if name != "" && name != "cluster" {
			var wired []string
			for _, c := range components {
				if !under(name, c) && slices.ContainsFunc(direct, func(d string) bool { return under(d, c) }) {
					wired = append(wired, c)
				}
			}
			if len(wired) > 1 {
				report("%s imports %v: only cluster and main import several components", name, wired)
			}
		}
	}
	slices.Sort(bad)
	return bad
}

// TestImportRules: the packages keep docs/architecture.md's dependency
// rules, read from `go list -deps -json` (what the compiler uses, not a
// grep).
func TestImportRules(t *testing.T) {
	pkgs := modulePackages(t)
	for _, want := range []string{"", "cluster", "apiserver", "scheduler", "controllers", "kubelet", "scenarios", "tui", "internal/flow"} {
		if _, ok := pkgs[want]; !ok {
			t.Fatalf("go list did not list the package %q", want)
		}
	}
	for _, b := range importRules(pkgs) {
		t.Error(b)
	}
}

// TestImportRulesCatchBreaches: the rules find what they are meant to
// find, on made-up packages.
func TestImportRulesCatchBreaches(t *testing.T) {
	p := func(name string, deps ...string) pkgInfo {
		var full []string
		for _, d := range deps {
			full = append(full, module+"/"+d)
		}
		return pkgInfo{ImportPath: module + "/" + name, Imports: full, Deps: full}
	}
	tests := []struct {
		pkg  pkgInfo
		want string
	}{
		{p("scheduler", "apiserver/registry"), "scheduler depends on apiserver/registry"},
		{p("tui", "internal/flow", "apiserver"), "tui depends on apiserver"},
		{p("controllers/deployment", "apiserver/storage"), "controllers/deployment depends on apiserver/storage"},
		{p("scenarios", "apiserver"), "scenarios imports apiserver"},
		{p("scenarios", "kubelet"), "scenarios imports kubelet"},
		{p("internal/flow", "cluster"), "internal/flow depends on cluster"},
		{p("tui", "scheduler", "kubelet"), "tui imports [scheduler kubelet]"},
		{p("apiserver/aggregatorserver", "apiserver/kubeapiserver"), "apiserver/aggregatorserver imports apiserver/kubeapiserver"},
		{p("apiserver", "apiserver/apiextensionsserver"), "apiserver imports apiserver/apiextensionsserver"},
		{p("apiserver/filters", "apiserver"), "apiserver/filters depends on apiserver"},
	}
	for _, tt := range tests {
		got := importRules(map[string]pkgInfo{rel(tt.pkg.ImportPath): tt.pkg})
		if !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, tt.want) }) {
			t.Errorf("%s: breaches %q, want one starting %q", tt.pkg.ImportPath, got, tt.want)
		}
	}
	if got := importRules(map[string]pkgInfo{"cluster": p("cluster", "apiserver", "scheduler", "kubelet")}); len(got) != 0 {
		t.Errorf("the assembler's imports: breaches %q, want none", got)
	}
}
