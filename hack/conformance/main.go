// Command conformance runs upstream Kubernetes' [Conformance] tests
// (k8s.io/kubernetes/test/e2e of v1.37.2, the release kubesim serves)
// against a fresh `kubesim serve`, and writes docs/conformance.md: one row
// for every conformance test of the sigs kubesim teaches, passed, failed
// (with the first line of its failure) or excluded (with what it needs
// that kubesim does not simulate by design).
//
//	go build -o /tmp/kubesim . && go run ./hack/conformance -kubesim /tmp/kubesim
//
// The suite, the ginkgo runner and kubectl of the same release are built
// with `go test -c` / `go build` in hack/conformance/e2e, a module of its
// own (so that the suite's dependencies stay out of kubesim's go.mod),
// into -bin-dir, and reused from there on later runs (-rebuild builds them
// again). The first build takes long; see docs/conformance.md for the
// figures measured here.
//
// Which tests are excluded, and why, is excluded.tsv: only tests that need
// a real process in a container (exec, port-forward, a program's output
// or exit, a probe answered by a server in the container, a webhook or
// sample-apiserver pod serving HTTP) or packets between pods. Every other
// test runs; what fails is a defect of kubesim, listed as such.
//
// It is a tool to run by hand, never part of `go test ./...`: a whole run
// takes tens of minutes. -focus narrows the run to the tests whose name
// matches (the report then keeps the other rows as "not run");
// -from re-renders the report from a previous run's work directory, and
// -previous adds an earlier run's counts (before and after a change).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"time"
)

// options are conformance's flags.
type options struct {
	kubesim, binDir, work, out, from string
	// previous is an earlier run's work directory, whose counts the
	// report shows beside this run's.
	previous string
	// build names the kubesim build (a commit) in the report.
	build        string
	focus        *regexp.Regexp
	procs, nodes int
	rebuild      bool
	timeout      time.Duration
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string) (options, error) {
	var o options
	var focus string
	fs := flag.NewFlagSet("conformance", flag.ContinueOnError)
	fs.StringVar(&o.kubesim, "kubesim", "", "the kubesim binary to test (required unless -from)")
	fs.StringVar(&o.binDir, "bin-dir", filepath.Join(os.TempDir(), "kubesim-conformance", "bin"), "where e2e.test, ginkgo and kubectl are built and reused")
	fs.StringVar(&o.work, "work", "", "the run's directory: kubesim's data dir, logs, ginkgo's report (default: a new one under $TMPDIR)")
	fs.StringVar(&o.out, "out", "docs/conformance.md", "the report to write")
	fs.StringVar(&o.from, "from", "", "re-render the report from this earlier -work directory, running nothing")
	fs.StringVar(&o.previous, "previous", "", "an earlier run's -work directory, whose counts the report shows too (before and after a change)")
	fs.StringVar(&o.build, "build", "", "what the kubesim binary was built from (a commit), for the report")
	fs.StringVar(&focus, "focus", "", "run only the selected tests whose name matches this regexp")
	fs.IntVar(&o.procs, "procs", 4, "ginkgo processes running tests in parallel ([Serial] ones run alone at the end)")
	fs.IntVar(&o.nodes, "nodes", 3, "kubesim serve --nodes")
	fs.BoolVar(&o.rebuild, "rebuild", false, "build e2e.test, ginkgo and kubectl again even if -bin-dir has them")
	fs.DurationVar(&o.timeout, "timeout", 3*time.Hour, "the whole suite's timeout (ginkgo --timeout)")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.kubesim == "" && o.from == "" {
		return o, fmt.Errorf("-kubesim BIN is required (go build -o /tmp/kubesim . first)")
	}
	if focus != "" {
		re, err := regexp.Compile(focus)
		if err != nil {
			return o, fmt.Errorf("-focus: %v", err)
		}
		o.focus = re
	}
	return o, nil
}

// run selects the tests, runs them (unless -from) and writes the report.
func run(ctx context.Context, o options) error {
	tests, err := loadCatalog()
	if err != nil {
		return err
	}
	if o.from != "" {
		o.work = o.from
	} else {
		if o.work, err = workDir(o.work); err != nil {
			return err
		}
		if err := runSuite(ctx, o, tests); err != nil {
			return err
		}
	}
	this, err := readRun(o.work)
	if err != nil {
		return err
	}
	if len(this.results) == 0 {
		return fmt.Errorf("the suite reported no test: see %s", filepath.Join(o.work, "ginkgo.log"))
	}
	var earlier *runResult
	if o.previous != "" {
		if earlier, err = readRun(o.previous); err != nil {
			return err
		}
	}
	return writeReport(o.out, tests, this, earlier)
}

// workDir makes the run's directory: dir, or a new one under $TMPDIR
// when dir is empty.
func workDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "kubesim-conformance-run-")
	}
	return dir, os.MkdirAll(dir, 0o755)
}
