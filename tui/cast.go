package tui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"
)

// castWriter records what is written to the terminal as an asciicast v2
// file (https://docs.asciinema.org/manual/asciicast/v2/): a header line,
// then one [seconds, "o", data] line per write. Safe for concurrent use.
type castWriter struct {
	out   io.Writer
	now   func() time.Time
	start time.Time

	mu  sync.Mutex
	f   *os.File
	bw  *bufio.Writer
	err error
}

// newCastWriter creates path and writes the header for a width×height
// terminal; writes to the returned writer go to out and to the file.
func newCastWriter(path string, out io.Writer, width, height int, now func() time.Time) (*castWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	c := &castWriter{out: out, now: now, start: now(), f: f, bw: bufio.NewWriter(f)}
	hdr, _ := json.Marshal(map[string]any{
		"version": 2, "width": width, "height": height, "timestamp": c.start.Unix(),
		"env": map[string]string{"TERM": os.Getenv("TERM")},
	})
	if _, err := c.bw.Write(append(hdr, '\n')); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("record: %w", err)
	}
	return c, nil
}

// Write writes p to the terminal and records it.
func (c *castWriter) Write(p []byte) (int, error) {
	n, err := c.out.Write(p)
	c.event("o", string(p[:n]))
	return n, err
}

// resize records a change of the terminal's size.
func (c *castWriter) resize(width, height int) {
	c.event("r", fmt.Sprintf("%dx%d", width, height))
}

func (c *castWriter) event(kind, data string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	line, _ := json.Marshal([]any{c.now().Sub(c.start).Seconds(), kind, data})
	_, c.err = c.bw.Write(append(line, '\n'))
}

// Close flushes and closes the file; it returns the first error met.
func (c *castWriter) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = c.bw.Flush()
	}
	if err := c.f.Close(); c.err == nil {
		c.err = err
	}
	if c.err != nil {
		return fmt.Errorf("record: %w", c.err)
	}
	return nil
}

// termSize returns the size of w if it is a terminal, else 80×24.
func termSize(w io.Writer) (int, int) {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		if width, height, err := term.GetSize(f.Fd()); err == nil && width > 0 && height > 0 {
			return width, height
		}
	}
	return 80, 24
}
