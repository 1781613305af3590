package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kubesim/kubesim/internal/flow"
	"github.com/kubesim/kubesim/scenarios"
	"github.com/kubesim/kubesim/scenarios/recording"
	"github.com/kubesim/kubesim/tui"
	"github.com/kubesim/kubesim/web"
)

// webFlagUsage is the help of --web, shared by play, replay and serve.
const webFlagUsage = "serve the web view (a live sequence diagram for a class) on `ADDR`; --web alone listens on " + web.DefaultAddr + " (loopback, a free port); a classroom network needs --web 0.0.0.0:PORT, which shows the lesson to everyone who can reach the machine (the controls need the teacher's key)"

// webAddrArg takes the address of a --web given as a separate argument
// (--web 0.0.0.0:8080, which cobra reads as an argument since --web's
// value is optional) out of args: the one argument more than want that
// argsWithWeb let through only when it is an address.
func webAddrArg(web *string, set bool, args []string, want int) ([]string, error) {
	if !set || len(args) != want+1 {
		return args, nil
	}
	last := args[len(args)-1]
	if *web != "" && *web != defaultWebAddr {
		return nil, usageError{fmt.Errorf("--web is given %q and %q", *web, last)}
	}
	*web = last
	return args[:len(args)-1], nil
}

// argsWithWeb accepts n arguments as cobra.ExactArgs(n) (cobra.NoArgs
// for 0) does, and one more when --web is given and the last argument
// is an address (webAddrArg takes it).
func argsWithWeb(n int) cobra.PositionalArgs {
	exact := cobra.ExactArgs(n)
	if n == 0 {
		exact = cobra.NoArgs
	}
	return usageArgs(func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flags().Lookup("web"); f != nil && f.Changed && len(args) == n+1 {
			if _, _, err := net.SplitHostPort(args[n]); err == nil {
				return nil
			}
		}
		return exact(cmd, args)
	})
}

// defaultWebAddr is --web's value when it is given alone.
const defaultWebAddr = web.DefaultAddr

// runPlayWeb plays sc with the web view: the lesson plays on a fresh
// cluster (restarted from the teacher's page as often as asked) until
// Ctrl-C. The terminal shows only where to look.
func runPlayWeb(ctx context.Context, sc *scenarios.Scenario, o playOptions, stderr io.Writer) error {
	if o.plain || o.json || o.markdown != "" || o.record != "" || o.present {
		return usageError{errors.New("--web shows the lesson in the browser: it cannot be used with --plain, --json, --present, --markdown or --record")}
	}
	d, start, err := lessonDriver(sc, o)
	if err != nil {
		return err
	}
	defer d.Close()
	srv, err := web.New(web.Config{Addr: o.web, Driver: d, Scenario: sc.Name, Start: start})
	if err != nil {
		return err
	}
	return serveWeb(ctx, srv, fmt.Sprintf("kubesim: playing %q", sc.Name), stderr, func() string { return d.kubeconfig() })
}

// serveWeb starts srv, says on w where the class and the teacher look,
// and serves until ctx is done (Ctrl-C).
func serveWeb(ctx context.Context, srv *web.Server, what string, w io.Writer, kubeconfig func() string) error {
	if err := srv.Start(ctx); err != nil {
		_ = srv.Close()
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	fmt.Fprintf(w, "%s in the web view\n", what)
	printWebURLs(w, srv)
	if k := kubeconfig(); k != "" {
		fmt.Fprintf(w, "export KUBECONFIG=%s\n", k)
	}
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
	<-ctx.Done()
	fmt.Fprintln(w, "kubesim: stopping")
	return srv.Close()
}

// printWebURLs says on w where the class and the teacher open srv.
func printWebURLs(w io.Writer, srv *web.Server) {
	for _, u := range webURLs(srv.URL()) {
		fmt.Fprintf(w, "kubesim: web view for the class (read-only): %s\n", u)
	}
	for _, u := range webURLs(srv.URL()) {
		fmt.Fprintf(w, "kubesim: web view for the teacher (controls): %s?key=%s\n", u, srv.Key())
	}
}

// webURLs are the addresses a browser reaches url at: url itself, or,
// for a server on every interface (0.0.0.0, ::), one per address of
// this machine's interfaces that is not loopback (loopback first).
func webURLs(url string) []string {
	host := strings.TrimPrefix(url, "http://")
	host, port, err := net.SplitHostPort(strings.TrimSuffix(host, "/"))
	if err != nil || (host != "0.0.0.0" && host != "::") {
		return []string{url}
	}
	out := []string{"http://" + net.JoinHostPort("127.0.0.1", port) + "/"}
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if ip, ok := a.(*net.IPNet); ok && !ip.IP.IsLoopback() && ip.IP.To4() != nil {
			out = append(out, "http://"+net.JoinHostPort(ip.IP.String(), port)+"/")
		}
	}
	return out
}

// replayWeb replays rec in the web view, as often as the teacher
// restarts it, until Ctrl-C.
func replayWeb(ctx context.Context, rec *recording.Recording, o replayOptions, stderr io.Writer) error {
	if o.plain || o.json {
		return usageError{errors.New("--web shows the replay in the browser: it cannot be used with --plain or --json")}
	}
	if o.speed < 0 {
		o.speed = 1
	}
	mode := flow.ModeAuto
	if o.step {
		mode = flow.ModeStep
	}
	srv, err := web.New(web.Config{Addr: o.web, Driver: &replayDriver{rec: rec}, Scenario: rec.Header.Scenario.Name,
		Start: tui.StartOptions{Mode: mode, Speed: o.speed, Lang: o.lang}, Replay: true})
	if err != nil {
		return err
	}
	what := fmt.Sprintf("kubesim: replaying %q as played %s (no cluster runs)", rec.Header.Scenario.Name, rec.Header.Started.Format("2006-01-02 15:04 UTC"))
	return serveWeb(ctx, srv, what, stderr, func() string { return "" })
}
