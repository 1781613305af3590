// Command golden captures what users of kubesim see, normalized, one file
// per output, so that two builds can be compared with diff -r: the
// refactors that must not change anything visible are checked this way.
//
//	go build -o /tmp/kubesim-before . && go run ./hack/golden -kubesim /tmp/kubesim-before -out /tmp/golden-before
//	go build -o /tmp/kubesim-after .  && go run ./hack/golden -kubesim /tmp/kubesim-after -out /tmp/golden-after
//	diff -r /tmp/golden-before /tmp/golden-after
//
// It captures three parts, chosen with -parts:
//
//   - cli: kubesim version and the help of every command;
//   - kubectl: a `kubesim serve` at speed 0 on a free loopback port, and
//     what kubectl (on PATH, or -kubectl) shows of pods, deployments,
//     services, a CustomResourceDefinition and its custom resource (the
//     manifests of manifests/): apply, get (default, wide, YAML), describe,
//     explain, the refusal of an invalid object, get --watch across one
//     change; then api-resources, version and the discovery and OpenAPI v3
//     documents;
//   - scenarios: the scenario list and every scenario played with --plain
//     at speed 0, in English and in Chinese.
//
// What varies from run to run (ports, UIDs, times, generated names...) is
// replaced by the rules of normalize.go. A scenario's output keeps its
// steps in order, and its pods' stage blocks follow them, each pod's as
// sets of paragraphs by stage: at speed 0 the cluster races the steps,
// and where a block falls varies. Even so, the scenarios whose
// controllers race each other (deployment-rollout above all, and now and
// then cascading-delete, namespace-delete, crashloop-backoff) can differ
// between two runs of one build; read those diffs, or run twice.
//
// With -raw, the outputs are also written as captured; -from
// re-normalizes such a directory without running anything, to try new
// rules on old captures. It is a tool to run by hand, not part of go
// test; a run takes 5 to 7 minutes here.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"slices"
	"strings"
	"time"
)

// options are golden's flags.
type options struct {
	kubesim, kubectl string
	out, raw, from   string
	parts            map[string]bool
	scenarios        *regexp.Regexp
	timeout          time.Duration
}

// allParts are the parts of a capture, in the order they run.
var allParts = []string{"cli", "kubectl", "scenarios"}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "golden:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err = run(ctx, o)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "golden:", err)
		os.Exit(1)
	}
}

// parseFlags reads the command line; it fails on a missing or bad flag.
func parseFlags(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("golden", flag.ContinueOnError)
	fs.StringVar(&o.kubesim, "kubesim", "", "the kubesim `binary` to capture (required, unless -from)")
	fs.StringVar(&o.kubectl, "kubectl", "kubectl", "the kubectl `binary`")
	fs.StringVar(&o.out, "out", "", "`DIR` to write the normalized outputs to: missing or empty (required)")
	fs.StringVar(&o.raw, "raw", "", "also write the outputs as captured, before normalization, to `DIR` (missing or empty)")
	fs.StringVar(&o.from, "from", "", "run nothing: normalize the outputs of an earlier -raw `DIR` into -out")
	parts := fs.String("parts", strings.Join(allParts, ","), "comma-separated `parts` to capture: "+strings.Join(allParts, ", "))
	only := fs.String("scenarios", "", "play only the scenarios whose name matches this `regexp` (default: all)")
	fs.DurationVar(&o.timeout, "timeout", 10*time.Minute, "bound on each command, a scenario's play included")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	case o.out == "":
		return o, fmt.Errorf("-out is required")
	case o.kubesim == "" && o.from == "":
		return o, fmt.Errorf("-kubesim is required")
	}
	o.parts = map[string]bool{}
	for _, p := range strings.Split(*parts, ",") {
		if !slices.Contains(allParts, p) {
			return o, fmt.Errorf("-parts: unknown part %q (want some of %s)", p, strings.Join(allParts, ", "))
		}
		o.parts[p] = true
	}
	re, err := regexp.Compile(*only)
	if err != nil {
		return o, fmt.Errorf("-scenarios: %w", err)
	}
	o.scenarios = re
	return o, nil
}
