package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/internal/benchtable"
)

// benchOptions are the flags of kubesim bench.
type benchOptions struct {
	quick    bool
	count    int
	markdown bool
	from     string
	out      string
	peerBin  string
	run      string
}

func newBenchCommand(stdout, stderr io.Writer) *cobra.Command {
	var o benchOptions
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the performance benchmarks and print the table of figures beside their baselines",
		Long: `bench runs kubesim's benchmarks (go test -bench, in this source tree)
and prints one row per figure of docs/performance.md: the minimum,
median and maximum over --count runs, the goal, and the baseline
measured in the same run beside it (raw etcd puts, one watcher, the
binary's own start). The benchmarks' whole output goes to --out, never
to the terminal; --from prints the table of such a file again.
--quick leaves the large sizes out (a few minutes instead of about an
hour). The "peer" rows (P1 to P4, P7) run the same load against
kubesim and the real kube-apiserver (P2, P3 and P7: with the real
kube-scheduler and kube-controller-manager, and kubesim's kubelets
pointed at it), taking turns (../shared/peer/build --all builds them,
--peer-bin names their bin directory, ../shared/peer/start-peer or
$KUBESIM_PEER_START starts it); without it they are skipped. --run
VsPeer runs only those. Run it in the checkout: go run . bench --quick`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.count < 1 {
				return usageError{fmt.Errorf("--count must be at least 1, got %d", o.count)}
			}
			if _, err := selectedRuns(o.run); err != nil {
				return usageError{err}
			}
			return runBench(o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.quick, "quick", false, "small sizes only: the 100-node rows, no 1,000-node or 10,000-pod runs")
	f.IntVar(&o.count, "count", 3, "runs of each benchmark (go test -count)")
	f.BoolVar(&o.markdown, "markdown", false, "print the table as Markdown (as in docs/performance.md)")
	f.StringVar(&o.from, "from", "", "print the table of a `FILE` of benchmark output instead of running them")
	f.StringVar(&o.peerBin, "peer-bin", defaultPeerBin(), "`DIR` of the peer's binaries (etcd, kube-apiserver, kube-scheduler, kube-controller-manager) for the peer rows (default: $KUBESIM_PEER_BIN, else ${TMPDIR:-/tmp}/k8s-peer/bin if it exists)")
	f.StringVar(&o.run, "run", "", "run only the benchmarks whose name matches `REGEXP` (go test -bench's pattern of each run, e.g. VsPeer); the other rows show as not run")
	f.StringVar(&o.out, "out", "", "`FILE` for the benchmarks' whole output (default: kubesim-bench-<time>.txt in the temporary directory)")
	return cmd
}

// runBench runs the plan's benchmarks (unless o.from), then prints the
// table; it fails if a run failed, after printing what it has.
func runBench(o benchOptions, stdout, stderr io.Writer) error {
	root, rootErr := moduleRoot()
	peer, peerSkip := peerEnv(o.peerBin, root)
	raw, runErr := benchOutput(o, root, rootErr, peer, peerSkip, stderr)
	if raw == nil {
		return runErr
	}
	results, err := benchtable.Parse(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if len(results) == 0 {
		return errors.Join(runErr, errors.New("kubesim bench: no benchmark results in the output"))
	}
	lines := benchtable.Build(benchtable.Rows, results)
	for _, bench := range benchtable.PeerBenches {
		if peerSkip != "" {
			benchtable.MarkSkipped(lines, bench, peerSkip)
		}
	}
	if o.markdown {
		err = benchtable.WriteMarkdown(stdout, lines)
	} else {
		err = benchtable.WriteText(stdout, lines)
	}
	return errors.Join(runErr, err)
}

// benchOutput is the benchmarks' output: read from o.from, or made by
// running every run of the plan in the source tree dir (rootErr: why
// there is none), appended to the --out file as it comes. The runs that
// need the peer get its environment peer, or are left out for peerSkip.
func benchOutput(o benchOptions, dir string, rootErr error, peer []string, peerSkip string, progress io.Writer) ([]byte, error) {
	if o.from != "" {
		return os.ReadFile(o.from)
	}
	if rootErr != nil {
		return nil, rootErr
	}
	if o.out == "" {
		o.out = filepath.Join(os.TempDir(), "kubesim-bench-"+time.Now().UTC().Format("20060102T150405Z")+".txt")
	}
	f, err := os.Create(o.out)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fmt.Fprintf(progress, "kubesim bench: the benchmarks' output goes to %s\n", o.out)
	var all bytes.Buffer
	var failed []error
	selected, _ := selectedRuns(o.run)
	for i, run := range benchtable.Plan {
		args := run.Args(o.quick, o.count)
		if !selected[i] {
			fmt.Fprintf(progress, "[%d/%d] left out: %s does not match --run\n", i+1, len(benchtable.Plan), run.Pattern)
			continue
		}
		if run.Peer && peerSkip != "" {
			fmt.Fprintf(progress, "[%d/%d] skipped: %s\n", i+1, len(benchtable.Plan), peerSkip)
			continue
		}
		fmt.Fprintf(progress, "[%d/%d] go %s\n", i+1, len(benchtable.Plan), strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		if run.Peer {
			cmd.Env = append(os.Environ(), peer...)
		}
		cmd.Stdout = io.MultiWriter(f, &all)
		cmd.Stderr = f
		if err := cmd.Run(); err != nil {
			failed = append(failed, fmt.Errorf("go %s: %v (output in %s)", strings.Join(args, " "), err, o.out))
		}
	}
	return all.Bytes(), errors.Join(failed...)
}

// selectedRuns says which of benchtable.Plan's runs --run's pattern
// selects (its regular expression matches the run's -bench pattern);
// an empty pattern selects all.
func selectedRuns(pattern string) ([]bool, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("--run %q: %v", pattern, err)
	}
	selected := make([]bool, len(benchtable.Plan))
	for i, run := range benchtable.Plan {
		selected[i] = re.MatchString(run.Pattern)
	}
	return selected, nil
}

// moduleRoot finds kubesim's source tree from the working directory up:
// the benchmarks are its test files, run by go test.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.HasPrefix(string(mod), "module github.com/kubesim/kubesim\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("kubesim bench runs the benchmarks of kubesim's source tree with go test: run it in the checkout (go run . bench)")
		}
		dir = parent
	}
}
