package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"
)

// sigs are the SIGs whose conformance tests kubesim is measured on: what
// a course about the control plane, workloads, access, scheduling,
// kubectl, the node and the network touches. (sig-storage's and
// sig-instrumentation's tests are not selected.)
var sigs = []string{"sig-api-machinery", "sig-apps", "sig-auth", "sig-scheduling", "sig-cli", "sig-node", "sig-network"}

// test is one conformance test of upstream's list.
type test struct {
	Name    string // the codename: the full ginkgo text, as ginkgo reports it
	Sig     string
	File    string // its source in k8s.io/kubernetes
	Release string // the release it became conformance in
	// Excluded says what it needs that kubesim does not simulate, when it
	// is not run; empty otherwise.
	Excluded *exclusion
}

// entry is an element of test/conformance/testdata/conformance.yaml.
type entry struct {
	Codename string `json:"codename"`
	File     string `json:"file"`
	Release  string `json:"release"`
}

var sigOf = regexp.MustCompile(`^\[(sig-[a-z-]+)\]`)

// loadCatalog reads upstream's conformance list from the module cache and
// returns the tests of sigs, in the list's order, each with its exclusion.
func loadCatalog() ([]test, error) {
	dir, err := kubernetesDir()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, "test", "conformance", "testdata", "conformance.yaml"))
	if err != nil {
		return nil, err
	}
	var list []entry
	if err := yaml.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("conformance.yaml: %v", err)
	}
	excl, err := loadExclusions()
	if err != nil {
		return nil, err
	}
	var tests []test
	for _, e := range list {
		m := sigOf.FindStringSubmatch(e.Codename)
		if m == nil || !slices.Contains(sigs, m[1]) {
			continue
		}
		t := test{Name: e.Codename, Sig: m[1], File: e.File, Release: e.Release}
		if x, ok := excl[e.Codename]; ok {
			t.Excluded = &x
			delete(excl, e.Codename)
		}
		tests = append(tests, t)
	}
	for name := range excl {
		return nil, fmt.Errorf("excluded.tsv names %q, which is not a selected conformance test", name)
	}
	return tests, nil
}

// kubernetesDir is the module cache's copy of k8s.io/kubernetes that
// hack/conformance/e2e builds the suite from.
func kubernetesDir() (string, error) {
	mod, err := e2eModuleDir()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "k8s.io/kubernetes")
	cmd.Dir = mod
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go list -m k8s.io/kubernetes in %s: %v: %s", mod, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// e2eModuleDir finds hack/conformance/e2e from the working directory (the
// repository or a directory in it).
func e2eModuleDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod := filepath.Join(dir, "hack", "conformance", "e2e")
		if _, err := os.Stat(filepath.Join(mod, "go.mod")); err == nil {
			return mod, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("hack/conformance/e2e/go.mod not found: run from kubesim's repository")
		}
		dir = parent
	}
}
