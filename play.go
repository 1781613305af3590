package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/tui"
)

// DefaultScenario is what `kubesim` alone plays.
const DefaultScenario = "pod-create"

// playOptions are the flags of `kubesim play` (and of `kubesim` alone).
type playOptions struct {
	plain, json, step bool
	present           bool
	compact           bool
	lang              string
	speed             float64
	dataDir           string
	port              int
	markdown, record  string
	recordSession     string
	web               string
}

func (o *playOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.BoolVar(&o.plain, "plain", false, "print each stage as text (the default when stdout is not a terminal)")
	f.BoolVar(&o.json, "json", false, "print one JSON object per scenario step and flow event")
	f.BoolVar(&o.compact, "compact", false, "with --plain: print the first pod of each owner (a ReplicaSet, a Job) stage by stage, and count the others' stages in a line")
	f.BoolVar(&o.step, "step", false, "hold the cluster at every stage boundary until Enter is pressed")
	f.BoolVar(&o.present, "present", false, "terminal UI for a teacher at a projector: step mode (as --step), the whole narration shown (page down/up when it does not fit)")
	f.StringVar(&o.lang, "lang", "en", "language of the narration: en or zh")
	f.Float64Var(&o.speed, "speed", -1, "speed of simulated time (image pulls, container starts, back-offs, waits); 0 removes the delays (default: the scenario's, usually 1)")
	f.StringVar(&o.dataDir, "data-dir", "", "keep etcd data, logs and the kubeconfig in `DIR` (default: a temporary directory removed on exit)")
	f.IntVar(&o.port, "port", 0, "`port` the API server listens on (0 picks a free one)")
	f.StringVar(&o.markdown, "markdown", "", "terminal UI: on quitting, write the walkthrough with its evidence to `FILE` (Markdown)")
	f.StringVar(&o.record, "record", "", "terminal UI: record the session to `FILE` (asciicast v2, for asciinema)")
	f.StringVar(&o.recordSession, "record-session", "", "record what the lesson shows to `FILE`, for kubesim replay (docs/replay.md)")
	f.StringVar(&o.web, "web", "", webFlagUsage)
	f.Lookup("web").NoOptDefVal = defaultWebAddr
}

// validate checks the options, every problem at once (a usage error
// listing them all), as serve's are checked.
func (o *playOptions) validate() error {
	var errs []error
	if o.lang != "en" && o.lang != "zh" {
		errs = append(errs, fmt.Errorf("--lang must be en or zh, got %q", o.lang))
	}
	if o.plain && o.json {
		errs = append(errs, errors.New("--plain and --json cannot be used together"))
	}
	if o.compact && o.json {
		errs = append(errs, errors.New("--compact belongs to --plain; it cannot be used with --json"))
	}
	// --speed -1 (the default) keeps the scenario's speed.
	probe := cluster.Config{BindAddress: cluster.DefaultBindAddress, Port: o.port, Speed: o.speed, ReadyTimeout: cluster.DefaultReadyTimeout}
	if o.speed == -1 {
		probe.Speed = 0
	}
	if err := probe.Validate(); err != nil {
		errs = append(errs, flatten(err)...)
	}
	if len(errs) > 0 {
		return usageError{utilerrors.NewAggregate(errs)}
	}
	return nil
}

func newPlayCommand(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	var o playOptions
	cmd := &cobra.Command{
		Use:   "play NAME|FILE",
		Short: "Play a scenario: a real cluster goes through it while each stage is shown",
		Long: `play starts a fresh cluster (etcd, API server, scheduler, nodes), runs the
scenario's steps against it and shows every stage each pod goes through,
with the evidence captured from the running components. NAME is a scenario
of the library (see "kubesim scenarios"); FILE is a scenario file.

The exit status is 0 when every expectation of the scenario held, 1 when
one did not (the message says which) and 2 for a bad command line or a bad
scenario file.`,
		Args: argsWithWeb(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			args, err := webAddrArg(&o.web, cmd.Flags().Changed("web"), args, 1)
			if err != nil {
				return err
			}
			return runPlay(cmd.Context(), args[0], o, stdin, stdout, stderr)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// runPlay plays the scenario name (a library name or a file).
func runPlay(ctx context.Context, name string, o playOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	o.step = o.step || o.present // a presenter steps through the lesson
	o.plain = o.plain || o.compact
	sc, err := scenarios.Find(name)
	if err != nil {
		// A missing or malformed scenario is the caller's to fix: exit 2.
		return usageError{err}
	}
	if o.web != "" {
		return runPlayWeb(ctx, sc, o, stderr)
	}
	if !o.plain && !o.json && isTerminal(stdin) && isTerminal(stdout) {
		return runTUI(ctx, sc, o, stdin, stdout)
	}
	if o.markdown != "" || o.record != "" {
		return usageError{errors.New("--markdown and --record belong to the terminal UI; with --plain or --json, or without a terminal, redirect the output instead")}
	}
	mode := flow.ModeOff
	if o.step {
		mode = flow.ModeStep
	}
	cfg := scenarioCluster(sc, o.dataDir, o.port, o.speed, mode, 0)
	gate := cfg.Gate
	out, plain := headlessPrinter(sc, o, stdout)

	c, err := startCluster(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close()
	// The cluster is a real one: say how to reach it, on stderr, so that
	// stdout is the lesson alone (a replay of its recording prints the
	// same bytes; JSON stays parseable).
	fmt.Fprintf(stderr, "kubesim: playing %q on the API server at %s\nexport KUBECONFIG=%s\n", sc.Name, c.URL, c.Kubeconfig)
	if plain != nil {
		plain.Speed(cfg.Speed)
	}

	playCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var q *quiz
	if o.step {
		// The questions are asked on stderr, with the gate's prompts.
		if plain != nil {
			plain.AskedElsewhere()
		}
		q = newQuiz(out, stderr, o.lang)
		out = q
		wg.Add(1)
		go func() {
			defer wg.Done()
			stepThrough(playCtx, gate, q, stdin, stderr)
		}()
	}
	session, out, err := recordSession(o.recordSession, sc, playHeader(o, cfg.Speed), out)
	if err != nil {
		return err
	}
	defer session.Close()
	// The printers are EventObservers too: Play hands them every flow
	// event as it is recorded.
	opts := scenarios.Options{Lang: o.lang, Speed: cfg.Speed, Observer: out}
	if o.step {
		opts.Gate = gate // step by step through the scenario's steps too
	}
	err = session.end(scenarios.Play(playCtx, c, sc, opts))
	gate.SetMode(flow.ModeOff) // let whatever is still held go, so the cluster can stop
	cancel()
	if q != nil {
		if score := q.score(); score != "" {
			fmt.Fprintln(stderr, score)
		}
	}
	return err
}

// headlessPrinter is the observer that prints sc's run on stdout without
// the terminal UI: the JSON printer, or the plain one (also returned, nil
// for JSON, so that the caller can tell it the speed and the questions).
func headlessPrinter(sc *scenarios.Scenario, o playOptions, stdout io.Writer) (scenarios.Observer, *scenarios.PlainPrinter) {
	if o.json {
		return scenarios.NewJSONPrinter(stdout), nil
	}
	plain := scenarios.NewPlainPrinter(stdout, o.lang)
	plain.Follow(sc)
	if o.compact {
		plain.Compact()
	}
	return plain, plain
}

// stepThrough waits for the gate to hold something, says what on w and
// lets exactly that go when a line is read from in. When the step about
// to run has a question, quiz asks it first and the answer (or an empty
// line, to skip) lets the step go. When in ends, the gate is opened for
// good.
func stepThrough(ctx context.Context, gate *flow.Gate, q *quiz, in io.Reader, w io.Writer) {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		held, err := gate.WaitHeld(ctx)
		if err != nil {
			return
		}
		question, step := announceHeld(held, q, w)
		open := true
		if question != nil {
			open = q.ask(question, step, lines)
		} else {
			select {
			case <-ctx.Done():
				return
			case _, open = <-lines:
			}
		}
		if !open {
			fmt.Fprintln(w, "kubesim: input closed; running on without holding")
			gate.SetMode(flow.ModeOff)
			return
		}
		// Only what was announced: a boundary held meanwhile is
		// announced at the next turn, not let go unseen.
		gate.Release(held...)
	}
}

// announceHeld says on w what the gate holds, and returns the question
// to ask before it goes on: that of the step waiting at its gate, if any.
func announceHeld(held []flow.Boundary, q *quiz, w io.Writer) (*scenarios.Question, int) {
	var question *scenarios.Question
	var step int
	for _, b := range held {
		if b.Point == flow.PointNextStep {
			if question, step = q.pending(); question != nil {
				fmt.Fprintf(w, "⏸  next: step %s — a question first\n", b.Object.Name)
				continue
			}
			fmt.Fprintf(w, "⏸  next: step %s — press Enter to go on\n", b.Object.Name)
			continue
		}
		fmt.Fprintf(w, "⏸  stage %d/%d done, held: %s — press Enter to go on\n", int(b.Point.After()), len(flow.Stages), b)
	}
	return question, step
}

func newScenariosCommand(stdout io.Writer) *cobra.Command {
	lang := "en"
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the scenarios of the library",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			if lang != "en" && lang != "zh" {
				return usageError{fmt.Errorf("--lang must be en or zh, got %q", lang)}
			}
			lib, err := scenarios.Library()
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tLEVEL\tTITLE")
			for _, s := range lib {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Level, s.Title.In(lang))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintln(stdout)
			for _, s := range lib {
				fmt.Fprintf(stdout, "%s\n    %s\n", s.Name, s.Summary.In(lang))
			}
			fmt.Fprintln(stdout, "\nkubesim play NAME plays one.")
			return nil
		},
	}
	cmd.Flags().StringVar(&lang, "lang", lang, "language of titles and summaries: en or zh")
	return cmd
}

// runTUI plays sc in the terminal UI until the learner quits.
func runTUI(ctx context.Context, sc *scenarios.Scenario, o playOptions, stdin io.Reader, stdout io.Writer) error {
	d, start, err := lessonDriver(sc, o)
	if err != nil {
		return err
	}
	_, noColor := os.LookupEnv("NO_COLOR")
	err = tui.Run(ctx, d, tui.Options{
		Scenario: sc.Name, Mode: start.Mode, Speed: start.Speed, Lang: start.Lang, NoColor: noColor,
		Markdown: o.markdown, Record: o.record, Input: stdin, Output: stdout, Present: o.present,
	})
	return errors.Join(err, d.Close())
}

// lessonDriver returns the driver an interactive output (the terminal
// UI, the web view) plays sc with: the library, and sc first when it
// comes from a file, the first session recorded to --record-session; and
// the mode, speed and language the lesson starts with.
func lessonDriver(sc *scenarios.Scenario, o playOptions) (*scenarioDriver, tui.StartOptions, error) {
	var extra *scenarios.Scenario
	if !strings.HasPrefix(sc.File, "library/") {
		extra = sc // from a file: listed first, before the library
	}
	d, err := newScenarioDriver(o.dataDir, o.port, extra)
	if err != nil {
		return nil, tui.StartOptions{}, err
	}
	if d.record, err = createSessionFile(o.recordSession); err != nil {
		return nil, tui.StartOptions{}, errors.Join(err, d.Close())
	}
	start := tui.StartOptions{Mode: flow.ModeAuto, Speed: o.speed, Lang: o.lang}
	if start.Speed < 0 {
		start.Speed = sc.Cluster.Speed
	}
	if o.step {
		start.Mode = flow.ModeStep
	}
	return d, start, nil
}

// isTerminal reports whether rw is a terminal (a character device).
func isTerminal(rw any) bool {
	f, ok := rw.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// scenarioCluster returns the configuration of a cluster for sc with its
// own recorder and a gate in mode (delay: ModeAuto's); speed < 0 keeps the
// scenario's.
func scenarioCluster(sc *scenarios.Scenario, dataDir string, port int, speed float64, mode flow.Mode, delay time.Duration) *cluster.Config {
	cfg := cluster.NewConfig()
	cfg.DataDir = dataDir
	cfg.Port = port
	cfg.Recorder = flow.NewRecorder()
	cfg.Gate = flow.NewGate(mode, delay, cfg.Recorder)
	// A lesson reads old revisions on the learner's time: a class may
	// pause at a step for longer than kube-apiserver's 5 minute
	// compaction interval, and etcd-mvcc-history or watch-resume-410
	// would then find their history gone. While a scenario plays nothing
	// compacts but the steps that teach compaction.
	cfg.EtcdCompactionInterval = 0
	sc.Configure(cfg)
	if speed >= 0 {
		cfg.Speed = speed
	}
	return cfg
}
