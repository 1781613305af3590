package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// capture is what one command printed: its command line as a user would
// type it, its stdout, its stderr and how it ended.
type capture struct {
	// cmdline is the command as shown in the output file: the program's
	// base name and its arguments, never a path of this run.
	cmdline string
	stdout  string
	stderr  string
	// exit is the exit status; -1 when the command could not be started
	// or was killed (then err says why).
	exit int
	err  error
}

// runner runs commands in one directory with one environment and a
// bound on each.
type runner struct {
	env     []string
	dir     string
	timeout time.Duration
}

// run runs name with args, feeding it nothing on stdin, and returns what
// it printed. display is the program name shown in the capture's command
// line. A command that outlasts r.timeout is killed and reported so.
func (r runner) run(ctx context.Context, display, name string, args ...string) capture {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env, cmd.Dir = r.env, r.dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	c := capture{
		cmdline: strings.Join(append([]string{display}, args...), " "),
		stdout:  stdout.String(),
		stderr:  stderr.String(),
	}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		c.exit, c.err = -1, fmt.Errorf("killed after %s", r.timeout)
	case errors.As(err, &exitErr):
		c.exit = exitErr.ExitCode()
	case err != nil:
		c.exit, c.err = -1, err
	}
	return c
}

// render is the text of c as written to its output file: the command
// line, the exit status, then stdout and stderr, each under a marker
// line and only when not empty, so that a diff names the stream that
// changed.
func (c capture) render() string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\n", c.cmdline)
	if c.err != nil {
		fmt.Fprintf(&b, "error: %v\n", c.err)
	}
	fmt.Fprintf(&b, "exit status %d\n", c.exit)
	section(&b, "stdout", c.stdout)
	section(&b, "stderr", c.stderr)
	return b.String()
}

// section writes text under a "--- name" line, with a final newline, or
// nothing when text is empty.
func section(b *strings.Builder, name, text string) {
	if text == "" {
		return
	}
	fmt.Fprintf(b, "--- %s\n%s", name, text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
}
