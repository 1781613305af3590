// Command webload measures what the web view costs the kubesim process:
// it plays pod-create at speed 1 several rounds, alternating (a) without
// the web view (`kubesim play pod-create --plain --speed 1`, which exits
// when the lesson ends) and (b) with it (`--web=127.0.0.1:0`) watched by N
// read-only viewers, plain HTTP clients that each fetch the page once,
// follow /api/events and fetch the evidence of the first few arrows; (b)
// is interrupted (SIGINT, as Ctrl-C) once the teacher's stream says the
// lesson ended. For each run it reports the process's CPU time (user +
// system) and peak RSS from wait4's rusage, and the ratios web/plain
// (min, median, max over the rounds). The web view plays in auto mode,
// which holds each stage boundary for a second at speed 1 where --plain
// holds nothing, so a web run lasts longer: -bare adds to each round a
// web run without viewers, and the ratios web/bare, which leave that
// difference out.
//
//	go run ./hack/webload -rounds 3 -viewers 50
//
// Everything stays on loopback, and every run is bounded (-timeout). It
// builds kubesim from the current directory unless -bin names a binary.
// A tool to run by hand, not part of go test.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/kubesim/kubesim/hack/internal/kubesimweb"
)

type options struct {
	bin, scenario     string
	rounds, viewers   int
	evidencePerViewer int
	speed             string
	timeout           time.Duration
	bare              bool
}

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "", "kubesim binary (default: go build of the current directory)")
	flag.StringVar(&o.scenario, "scenario", "pod-create", "lesson to play")
	flag.IntVar(&o.rounds, "rounds", 3, "rounds, each one run without and one with the web view")
	flag.IntVar(&o.viewers, "viewers", 50, "read-only viewers of the web view")
	flag.IntVar(&o.evidencePerViewer, "evidence", 3, "arrows whose evidence each viewer fetches")
	flag.StringVar(&o.speed, "speed", "1", "--speed of the lesson")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bound of one run")
	flag.BoolVar(&o.bare, "bare", false, "also run the web view without viewers each round")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "webload:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.rounds < 1 || o.viewers < 0 {
		return fmt.Errorf("-rounds must be at least 1 and -viewers not negative")
	}
	tmp, err := os.MkdirTemp("", "webload-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.bin, err = kubesimweb.Binary(context.Background(), o.bin, tmp); err != nil {
		return err
	}
	var plain, web, bare []result
	for r := 1; r <= o.rounds; r++ {
		if o.bare {
			c, err := runWeb(options{bin: o.bin, scenario: o.scenario, speed: o.speed, timeout: o.timeout})
			if err != nil {
				return fmt.Errorf("round %d with the web view and no viewer: %w", r, err)
			}
			report(r, "web+0", c)
			bare = append(bare, c)
		}
		a, err := runPlain(o)
		if err != nil {
			return fmt.Errorf("round %d without the web view: %w", r, err)
		}
		report(r, "plain", a)
		plain = append(plain, a)
		b, err := runWeb(o)
		if err != nil {
			return fmt.Errorf("round %d with the web view: %w", r, err)
		}
		report(r, fmt.Sprintf("web+%d", o.viewers), b)
		web = append(web, b)
	}
	summarize("web/plain", plain, web)
	if o.bare {
		summarize("web/bare", bare, web)
		summarize("bare/plain", plain, bare)
	}
	return nil
}
