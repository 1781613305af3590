package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// watchLabel is the label the watched change sets; the watch shows it as a
// column (-L), so that the change's line tells itself from the listing.
const (
	watchLabel = "golden"
	watchValue = "watched"
	// watchBound is how long one watch capture may take in all.
	watchBound = time.Minute
)

// watch captures `kubectl get RESOURCE --watch`: once the watch has
// printed the row of kd.name, it labels that object, reads on until the
// row showing the label, and stops the watch as Ctrl-C does. It returns
// the lines printed until then, then the label command's capture. Within
// watchBound, or it says what it waited for.
func (k kubectl) watch(ctx context.Context, kd kind) string {
	ctx, cancel := context.WithTimeout(ctx, watchBound)
	defer cancel()
	args := []string{"get", kd.resource, "--watch", "-L", watchLabel}
	cmd := exec.CommandContext(ctx, k.bin, args...)
	cmd.Env, cmd.Dir = k.r.env, k.r.dir
	var stderr bytes.Buffer
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, &stderr
	head := fmt.Sprintf("$ kubectl %s\n", strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		return head + fmt.Sprintf("error: %v\n", err)
	}
	lines := make(chan string)
	go readLines(pr, lines)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); pw.Close(); close(done) }()

	printed, label, outcome := k.watchUntilChange(ctx, kd, lines)
	_ = cmd.Process.Signal(os.Interrupt)
	for range lines { // what it prints after the change is not kept
	}
	<-done

	var b strings.Builder
	b.WriteString(head)
	b.WriteString(outcome + "\n")
	section(&b, "stdout", printed)
	section(&b, "stderr", stderr.String())
	b.WriteString(label)
	return b.String()
}

// watchUntilChange reads the watch's lines: once the row of kd.name has
// been printed it labels the object, then it reads until the row that
// shows the label. It returns the lines read, the label command's capture
// rendered, and how the capture ended.
func (k kubectl) watchUntilChange(ctx context.Context, kd kind, lines <-chan string) (printed, label, outcome string) {
	var b strings.Builder
	labelled := false
	for {
		select {
		case <-ctx.Done():
			return b.String(), label, fmt.Sprintf("not ended by the change's line within %s (labelled: %v)", watchBound, labelled)
		case line, ok := <-lines:
			if !ok {
				return b.String(), label, "ended by itself before the change's line"
			}
			b.WriteString(line)
			fields := strings.Fields(line)
			if len(fields) == 0 || fields[0] != kd.name {
				continue
			}
			if labelled && fields[len(fields)-1] == watchValue {
				return b.String(), label, "stopped (as by Ctrl-C) after the line of the change"
			}
			if !labelled {
				labelled = true
				label = k.run(ctx, "label", kd.resource, kd.name, watchLabel+"="+watchValue).render()
			}
		}
	}
}

// readLines sends each line read from r (with its newline) on lines, and
// closes lines at the end of r.
func readLines(r io.Reader, lines chan<- string) {
	defer close(lines)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			lines <- line
		}
		if err != nil {
			return
		}
	}
}
