package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitCodeSecondSignal is kubesim's exit status when a second SIGINT or
// SIGTERM ends it during its graceful stop (128 + SIGINT, what a shell
// reports for a process that Ctrl-C ended).
const exitCodeSecondSignal = 130

// interruptContext returns a context that ends at the first SIGINT or
// SIGTERM, as signal.NotifyContext does; the graceful stop it starts may
// take a while (etcd, the API server's requests, the components). A
// second signal during it does not wait: it writes one line on stderr
// and calls exit(130) at once, as kubectl and most servers do. stop
// releases the signals (their default action again) and ends the
// context; main calls it once the command has returned.
func interruptContext(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(parent)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			fmt.Fprintf(stderr, "kubesim: %v again while stopping: exiting at once, without a graceful stop\n", sig)
			exit(exitCodeSecondSignal)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}
