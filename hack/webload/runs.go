package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"time"

	"github.com/kubesim/kubesim/hack/internal/kubesimweb"
)

// result is one run's figures.
type result struct {
	usage kubesimweb.Usage
	wall  time.Duration
	// For a web run: how many viewers saw the end, how many messages
	// and evidence fetches they had in all, and the first error of one.
	viewersEnded, messages, evidence int
	viewerErr                        error
}

// runPlain plays the lesson without the web view, to its end.
func runPlain(o options) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, o.bin, "play", o.scenario, "--plain", "--speed", o.speed)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdout: /dev/null
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return result{}, fmt.Errorf("%v; stderr:\n%s", err, stderr.String())
	}
	u, err := kubesimweb.UsageOf(cmd.ProcessState)
	return result{usage: u, wall: wall}, err
}

// runWeb plays the lesson with the web view and o.viewers viewers, and
// interrupts kubesim once the teacher's stream has the lesson's end.
func runWeb(o options) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	start := time.Now()
	p, err := kubesimweb.Start(ctx, o.bin, "play", o.scenario, "--web=127.0.0.1:0", "--speed", o.speed)
	if err != nil {
		return result{}, err
	}
	stopped := false
	defer func() {
		if !stopped {
			p.Stop()
		}
	}()
	crowd := startViewers(ctx, p, o.viewers, o.evidencePerViewer)
	endErr := waitEnd(ctx, p)
	if endErr == nil {
		// The viewers had the same stream: give them until the bound
		// to read the end too.
		crowd.waitEnded(ctx)
	}
	crowd.stop()
	if err := p.Interrupt(); err != nil {
		return result{}, err
	}
	st, err := p.Wait(time.Minute)
	stopped = true
	wall := time.Since(start)
	if endErr != nil {
		return result{}, fmt.Errorf("waiting for the lesson's end: %w; stderr:\n%s", endErr, p.Stderr())
	}
	if err != nil {
		return result{}, fmt.Errorf("after SIGINT: %w; stderr:\n%s", err, p.Stderr())
	}
	u, err := kubesimweb.UsageOf(st)
	r := result{usage: u, wall: wall}
	r.viewersEnded, r.messages, r.evidence, r.viewerErr = crowd.totals()
	return r, err
}

// waitEnd follows the teacher's stream until its `end` message.
func waitEnd(ctx context.Context, p *kubesimweb.Play) error {
	errEnd := fmt.Errorf("end")
	var lessonErr string
	err := kubesimweb.Stream(ctx, teacherClient, p.ViewerURL, p.Key, func(m kubesimweb.Message) error {
		if m.T != "end" {
			return nil
		}
		var e kubesimweb.End
		if err := m.Decode(&e); err != nil {
			return err
		}
		lessonErr = e.Error
		return errEnd
	})
	if err != errEnd {
		if err == nil {
			err = fmt.Errorf("the stream ended before the lesson did")
		}
		return err
	}
	if lessonErr != "" {
		return fmt.Errorf("the lesson failed: %s", lessonErr)
	}
	return nil
}
