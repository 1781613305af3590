package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/kubesim/kubesim/hack/internal/kubesimserve"
)

// runSuite builds (or reuses) the tools, starts kubesim serve in o.work
// (which must exist), runs the selected tests with ginkgo in two phases
// (phases) and records how the run was made in o.work/meta.json.
func runSuite(ctx context.Context, o options, tests []test) error {
	t, err := ensureTools(o.binDir, o.rebuild)
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "conformance: working in", o.work)
	names := selected(tests, o.focus)
	if len(names) == 0 {
		return fmt.Errorf("no test selected")
	}
	stderr, err := os.Create(filepath.Join(o.work, "kubesim-serve.stderr"))
	if err != nil {
		return err
	}
	defer stderr.Close()
	more := []string{"--nodes", fmt.Sprint(o.nodes)}
	s, err := kubesimserve.Start(ctx, o.kubesim, filepath.Join(o.work, "data"), more, os.Environ(), stderr)
	if err != nil {
		return err
	}
	defer s.Stop()
	m := meta{Started: time.Now().UTC(), Kubesim: kubesimVersion(o.kubesim), Build: o.build, Procs: o.procs, Nodes: o.nodes, Selected: names}
	for _, ph := range phases(names, o.procs) {
		if err := runGinkgo(ctx, o, t, s.Kubeconfig(), ph); err != nil {
			// A failing test makes ginkgo exit non-zero: that is a result.
			fmt.Fprintf(os.Stderr, "conformance: ginkgo (%s): %v\n", ph.dir, err)
		}
	}
	m.Finished = time.Now().UTC()
	return writeJSON(filepath.Join(o.work, "meta.json"), m)
}

// phase is one ginkgo run: some of the tests, in procs processes, its
// log and report in work/dir.
type phase struct {
	dir   string
	names []string
	procs int
}

// phases splits the tests: those that may run in parallel, then the
// [Serial] ones, alone. ginkgo would run the serial ones last on its
// first process, but a parallel process that disappears (a test that
// fails in a goroutine of its own crashes its process) then takes them
// all with it; run apart, they run whatever happened before.
func phases(names []string, procs int) []phase {
	par, ser := phase{dir: "parallel", procs: procs}, phase{dir: "serial", procs: 1}
	for _, n := range names {
		if strings.Contains(n, "[Serial]") {
			ser.names = append(ser.names, n)
		} else {
			par.names = append(par.names, n)
		}
	}
	var out []phase
	for _, ph := range []phase{par, ser} {
		if len(ph.names) > 0 {
			out = append(out, ph)
		}
	}
	return out
}

// selected are the names of the tests to run: not excluded, and matching
// focus when there is one.
func selected(tests []test, focus *regexp.Regexp) []string {
	var names []string
	for _, t := range tests {
		if t.Excluded == nil && (focus == nil || focus.MatchString(t.Name)) {
			names = append(names, t.Name)
		}
	}
	return names
}

// runGinkgo runs e2e.test under ginkgo for one phase, with its output in
// work/<phase>/ginkgo.log and the suite's report in
// work/<phase>/ginkgo/report.json.
func runGinkgo(ctx context.Context, o options, t tools, kubeconfig string, ph phase) error {
	dir := filepath.Join(o.work, ph.dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	log, err := os.Create(filepath.Join(dir, "ginkgo.log"))
	if err != nil {
		return err
	}
	defer log.Close()
	args := []string{
		"--procs", fmt.Sprint(ph.procs), "--timeout", o.timeout.String(), "--no-color", "-v",
		"--focus", focusRegexp(ph.names), t.e2e, "--",
		"--kubeconfig", kubeconfig, "--provider", "skeleton", "--kubectl-path", t.kubectl,
		"--dump-logs-on-failure=false", "--disable-log-dump", "--e2e-output-dir", dir,
		// The suite sets ginkgo's reporters itself (ginkgo's own
		// --json-report is left empty): its complete report is
		// report-dir/ginkgo/report.json.
		"--report-dir", dir, "--report-complete-ginkgo",
	}
	cmd := exec.CommandContext(ctx, t.ginkgo, args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "PATH="+filepath.Dir(t.kubectl)+":"+os.Getenv("PATH"))
	fmt.Fprintf(os.Stderr, "conformance: running %d tests in %d processes; tail -f %s\n", len(ph.names), ph.procs, log.Name())
	return cmd.Run()
}

// focusRegexp matches the tests named. It is not anchored: the text
// ginkgo matches does not start with the name (^ matches nothing), and
// every name ends with its tags ("[Conformance]"), so that none is found
// inside another.
func focusRegexp(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = regexp.QuoteMeta(n)
	}
	return strings.Join(q, "|")
}

// kubesimVersion is what `kubesim version` prints, on one line.
func kubesimVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return fmt.Sprintf("(kubesim version: %v)", err)
	}
	return strings.Join(strings.Fields(string(out)), " ")
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
