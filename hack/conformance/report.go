package main

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
	"time"
)

// outcome is a test's row: pass, fail, excluded, skipped (by the suite
// itself) or not run.
func outcome(t test, results map[string]result) (string, string) {
	if t.Excluded != nil {
		return "excluded", fmt.Sprintf("needs %s: %s", t.Excluded.Need, t.Excluded.Evidence)
	}
	r, ok := results[t.Name]
	switch {
	case !ok:
		return "not run", ""
	case r.State == "passed":
		return "pass", ""
	case r.State == "skipped":
		return "skipped", r.Failure
	case r.State == "failed":
		return "fail", r.Failure
	default:
		return "fail", r.State + ": " + r.Failure
	}
}

// tally counts a sig's outcomes.
type tally map[string]int

// writeReport writes docs/conformance.md: this run's counts (and an
// earlier run's, if given), its failures grouped, the exclusions, and one
// row per test.
func writeReport(path string, tests []test, this, earlier *runResult) error {
	var b strings.Builder
	writeHeader(&b, this.meta)
	writeSummary(&b, countOutcomes(tests, this.results))
	if earlier != nil {
		m := earlier.meta
		fmt.Fprintf(&b, "An earlier run, for comparison (%s, kubesim built from %s):\n\n", m.Started.Format("2006-01-02 15:04 UTC"), orUnknown(m.Build))
		writeSummary(&b, countOutcomes(tests, earlier.results))
	}
	writeCauses(&b, tests, this.results)
	writeExclusions(&b, tests)
	bySig := map[string][]test{}
	for _, t := range tests {
		bySig[t.Sig] = append(bySig[t.Sig], t)
	}
	for _, sig := range sigs {
		writeSig(&b, sig, bySig[sig], this.results)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// countOutcomes counts each sig's outcomes, and all of them as "total".
func countOutcomes(tests []test, results map[string]result) map[string]tally {
	counts := map[string]tally{"total": {}}
	for _, t := range tests {
		o, _ := outcome(t, results)
		if counts[t.Sig] == nil {
			counts[t.Sig] = tally{}
		}
		counts[t.Sig][o]++
		counts["total"][o]++
	}
	return counts
}

func writeHeader(b *strings.Builder, m meta) {
	fmt.Fprintf(b, "# Conformance: upstream's tests against kubesim\n\n")
	fmt.Fprintf(b, "Written by `go run ./hack/conformance` (see its package comment); do not edit by hand.\n")
	fmt.Fprintf(b, "Upstream's `[Conformance]` tests of Kubernetes %s (k8s.io/kubernetes/test/e2e, the list in\n", release)
	fmt.Fprintf(b, "test/conformance/testdata/conformance.yaml) of %s, run against `kubesim serve --nodes %d`\n", strings.Join(sigs, ", "), m.Nodes)
	fmt.Fprintf(b, "by ginkgo in %d processes, with kubectl %s.\n\n", m.Procs, release)
	fmt.Fprintf(b, "- kubesim: %s, built from %s\n", m.Kubesim, orUnknown(m.Build))
	fmt.Fprintf(b, "- run: %s, %s\n", m.Started.Format("2006-01-02 15:04 UTC"), m.Finished.Sub(m.Started).Round(time.Second))
	if m.FromLog {
		fmt.Fprintf(b, "- a ginkgo process disappeared during the run, so the suite wrote no report: the results are read from\n  ginkgo's log, and the tests that process was running are \"not run\"\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(b, "A test is excluded only when it needs what kubesim does not simulate by design: its kubelets\n")
	fmt.Fprintf(b, "run no process (no exec, port-forward, program output, probes, webhook or aggregated API\n")
	fmt.Fprintf(b, "server pods) and pods exchange no packets (hack/conformance/excluded.tsv, with the call that\n")
	fmt.Fprintf(b, "needs it). Every other failure is a defect of kubesim.\n\n")
}

func writeSummary(b *strings.Builder, counts map[string]tally) {
	fmt.Fprintf(b, "| sig | tests | pass | fail | excluded | other | pass / not excluded |\n|---|---|---|---|---|---|---|\n")
	for _, sig := range append(append([]string{}, sigs...), "total") {
		c := counts[sig]
		all := 0
		for _, n := range c {
			all += n
		}
		other := all - c["pass"] - c["fail"] - c["excluded"]
		run := all - c["excluded"]
		rate := "–"
		if run > 0 {
			rate = fmt.Sprintf("%.0f%%", 100*float64(c["pass"])/float64(run))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %s |\n", sig, all, c["pass"], c["fail"], c["excluded"], other, rate)
	}
	fmt.Fprintf(b, "\n\"other\": skipped by the suite itself, or not run (a -focus run, or the suite's timeout).\n\n")
}

// testNamespace is a namespace the suite made (a test's base name and a
// number), to be blotted out when failures are grouped.
var testNamespace = regexp.MustCompile(`\b[a-z][a-z0-9-]*-[0-9]{3,5}\b`)

// writeCauses groups the failures by their first line (with the test's
// namespace blotted out), most frequent first.
func writeCauses(b *strings.Builder, tests []test, results map[string]result) {
	n := map[string]int{}
	for _, t := range tests {
		if o, detail := outcome(t, results); o == "fail" {
			n[testNamespace.ReplaceAllString(detail, "<ns>")]++
		}
	}
	if len(n) == 0 {
		return
	}
	causes := make([]string, 0, len(n))
	for c := range n {
		causes = append(causes, c)
	}
	sort.Slice(causes, func(i, j int) bool {
		if n[causes[i]] != n[causes[j]] {
			return n[causes[i]] > n[causes[j]]
		}
		return causes[i] < causes[j]
	})
	fmt.Fprintf(b, "## Failures by their first line\n\n| tests | first line |\n|---|---|\n")
	for _, c := range causes {
		fmt.Fprintf(b, "| %d | %s |\n", n[c], cell(c))
	}
	b.WriteString("\n")
}

func writeExclusions(b *strings.Builder, tests []test) {
	n := map[string]int{}
	for _, t := range tests {
		if t.Excluded != nil {
			n[t.Excluded.Need]++
		}
	}
	keys := make([]string, 0, len(n))
	for k := range n {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(b, "## Why tests are excluded\n\n| needs | tests | that is |\n|---|---|---|\n")
	for _, k := range keys {
		fmt.Fprintf(b, "| %s | %d | %s |\n", k, n[k], needs[k])
	}
	b.WriteString("\n")
}

func writeSig(b *strings.Builder, sig string, tests []test, results map[string]result) {
	fmt.Fprintf(b, "## %s\n\n| test | result | detail |\n|---|---|---|\n", sig)
	for _, t := range tests {
		o, detail := outcome(t, results)
		name := strings.TrimSpace(strings.TrimPrefix(t.Name, "["+sig+"]"))
		fmt.Fprintf(b, "| %s | %s | %s |\n", cell(name), o, cell(detail))
	}
	b.WriteString("\n")
}

func orUnknown(s string) string {
	if s == "" {
		return "(not given)"
	}
	return s
}

// cell makes s safe inside a markdown table cell.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
