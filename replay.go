package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/recording"
)

// replayOptions are the flags of `kubesim replay`.
type replayOptions struct {
	plain, json, step bool
	lang              string
	speed             float64
	web               string
}

func newReplayCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var o replayOptions
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Replay a session recorded with play --record-session, with no cluster",
		Long: `replay shows again what a lesson showed when it was played with
--record-session FILE: its steps, every stage with the evidence the
components captured then, each step's result and its question's answer.
No cluster runs: what is shown comes from the file. --plain prints what
the run printed, byte for byte (in another language with --lang); the
terminal UI replays it with its keys (space, step mode, L for the
language). docs/replay.md describes the file.

The exit status is that of the recorded run (0 when every expectation
held, 1 when one did not), and 2 for a bad command line or a file that is
not a recording this kubesim reads.`,
		Args: argsWithWeb(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := webAddrArg(&o.web, cmd.Flags().Changed("web"), args, 1)
			if err != nil {
				return err
			}
			return runReplay(cmd.Context(), args[0], o, stdin, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.plain, "plain", false, "print the run as text (the default when stdout is not a terminal)")
	f.BoolVar(&o.json, "json", false, "print one JSON object per step and flow event, as play --json")
	f.BoolVar(&o.step, "step", false, "terminal UI or web view: start in step mode (hold at every stage boundary)")
	f.StringVar(&o.lang, "lang", "", "language of the narration and evidence: en or zh (default: the recording's)")
	f.StringVar(&o.web, "web", "", webFlagUsage)
	f.Lookup("web").NoOptDefVal = defaultWebAddr
	f.Float64Var(&o.speed, "speed", -1, "pace: the recorded time between two things shown is divided by it, 0 shows them at once (default: 1 in the terminal UI, 0 with --plain or --json)")
	return cmd
}

// readRecording reads the recording in file; a file that is missing or
// not a recording is a usage error (exit 2).
func readRecording(file string) (*recording.Recording, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	rec, err := recording.Read(file, f)
	if err != nil {
		return nil, usageError{err}
	}
	return rec, nil
}

func runReplay(ctx context.Context, file string, o replayOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.lang != "" && o.lang != "en" && o.lang != "zh" {
		return usageError{fmt.Errorf("--lang must be en or zh, got %q", o.lang)}
	}
	if o.plain && o.json {
		return usageError{errors.New("--plain and --json cannot be used together")}
	}
	rec, err := readRecording(file)
	if err != nil {
		return err
	}
	if o.lang == "" {
		o.lang = rec.Header.Lang
	}
	if o.web != "" {
		return replayWeb(ctx, rec, o, stderr)
	}
	if !o.plain && !o.json && isTerminal(stdin) && isTerminal(stdout) {
		if o.speed < 0 {
			o.speed = 1
		}
		return replayTUI(ctx, rec, o, stdin, stdout)
	}
	if o.step {
		return usageError{errors.New("--step belongs to the terminal UI; with --plain or --json, or without a terminal, the replay runs through")}
	}
	h := rec.Header
	// On stderr: stdout is the run's output, as it was printed.
	fmt.Fprintf(stderr, "kubesim: replaying %q as played %s (speed %g, --lang %s): no cluster runs\n",
		h.Scenario.Name, h.Started.Format("2006-01-02 15:04 UTC"), h.Speed, h.Lang)
	return rec.Feed(ctx, replayPrinter(rec, o, stdout), recording.FeedOptions{Speed: max(o.speed, 0), Holds: true})
}

// replayPrinter is the printer a headless play would have used, set up
// as the recorded run's was.
func replayPrinter(rec *recording.Recording, o replayOptions, stdout io.Writer) scenarios.Observer {
	if o.json {
		return scenarios.NewJSONPrinter(stdout)
	}
	h := rec.Header
	p := scenarios.NewPlainPrinter(stdout, o.lang)
	p.FollowStages(h.Stages)
	p.Speed(h.Speed)
	if h.Step {
		p.AskedElsewhere()
	}
	return p
}
