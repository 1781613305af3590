package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// meta is how a run was made (o.work/meta.json).
type meta struct {
	Started, Finished time.Time
	Kubesim           string
	Build             string // what the binary was built from (-build)
	// FromLog: the suite wrote no report (a parallel process
	// disappeared); the results were read from ginkgo.log.
	FromLog      bool `json:"-"`
	Procs, Nodes int
	Selected     []string // the tests asked for
}

// result is one test's outcome, from ginkgo's report.
type result struct {
	State   string // passed, failed, timedout, panicked, interrupted, aborted, skipped
	Failure string // the first line of the failure's message
	RunTime time.Duration
}

// ginkgoReport is the part of ginkgo's JSON report (a list of
// types.Report) that the report needs.
type ginkgoReport struct {
	SpecReports []struct {
		ContainerHierarchyTexts []string
		LeafNodeText            string
		LeafNodeType            string
		State                   string
		RunTime                 time.Duration
		Failure                 struct {
			Message string
		}
	}
}

// runResult is what one run left in its work directory.
type runResult struct {
	results map[string]result
	meta    meta
}

// readRun reads a run's work directory: meta.json and the results of each
// phase the run had (work/parallel, work/serial), keyed by the test's full
// name.
func readRun(work string) (*runResult, error) {
	var m meta
	b, err := os.ReadFile(filepath.Join(work, "meta.json"))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("meta.json: %v", err)
	}
	out := map[string]result{}
	for _, ph := range []string{"parallel", "serial"} {
		dir := filepath.Join(work, ph)
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			continue
		}
		results, fromLog, err := readPhase(dir)
		if err != nil {
			return nil, err
		}
		m.FromLog = m.FromLog || fromLog
		for name, r := range results {
			// A phase's report has every spec of the suite, those it
			// did not select as skipped: they do not hide another
			// phase's result.
			if _, seen := out[name]; !seen || r.State != "skipped" {
				out[name] = r
			}
		}
	}
	return &runResult{results: out, meta: m}, nil
}

// readPhase reads dir/ginkgo/report.json or, when the suite wrote none,
// dir/ginkgo.log (fromLog).
func readPhase(dir string) (results map[string]result, fromLog bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "ginkgo", "report.json"))
	if os.IsNotExist(err) {
		results, err := readLog(filepath.Join(dir, "ginkgo.log"))
		return results, true, err
	}
	if err != nil {
		return nil, false, err
	}
	var reports []ginkgoReport
	if err := json.Unmarshal(b, &reports); err != nil {
		return nil, false, fmt.Errorf("%s: %v", dir, err)
	}
	out := map[string]result{}
	for _, r := range reports {
		for _, s := range r.SpecReports {
			if s.LeafNodeType != "It" {
				continue
			}
			name := strings.Join(append(append([]string{}, s.ContainerHierarchyTexts...), s.LeafNodeText), " ")
			out[name] = result{State: s.State, Failure: firstLine(s.Failure.Message), RunTime: s.RunTime}
		}
	}
	return out, false, nil
}

// firstLine is the start of a failure message on one line: its first
// non-empty lines joined (gomega's "Expected" stands alone on its first),
// at most 200 bytes.
func firstLine(s string) string {
	var parts []string
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && n < 200 {
			parts = append(parts, l)
			n += len(l) + 1
		}
	}
	line := strings.Join(parts, " ")
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return line
}
