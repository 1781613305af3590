package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Run runs the TUI on opts.Input and opts.Output until the learner quits
// or ctx is done: it starts opts.Scenario through d (or opens the
// picker), shows it live, and at the end closes every session it
// started, writes the markdown walkthrough if opts.Markdown is set and
// the asciicast recording if opts.Record is.
// Nothing else is written to the terminal; quitting restores it. A
// cancelled ctx is a normal end (nil error).
func Run(ctx context.Context, d Driver, opts Options) error {
	in, out := opts.Input, opts.Output
	if in == nil {
		in = os.Stdin
	}
	if out == nil {
		out = os.Stdout
	}
	m := newModel(ctx, d, opts, newRenderer(out, opts.NoColor))
	var rec *castWriter
	if opts.Record != "" {
		w, h := termSize(out)
		now := opts.Now
		if now == nil {
			now = time.Now
		}
		var err error
		if rec, err = newCastWriter(opts.Record, out, w, h, now); err != nil {
			return err
		}
		m.onResize = rec.resize
		out = rec
	}
	p := tea.NewProgram(m,
		tea.WithContext(ctx),
		tea.WithInput(in),
		tea.WithOutput(out),
		tea.WithAltScreen(),
		tea.WithMouseCellMotion(),
	)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		err = nil
	}
	if err != nil {
		err = fmt.Errorf("tui: %w", err)
	}
	// The program has ended: the model is no longer used by Update.
	if cerr := m.sessions.closeAll(); cerr != nil {
		err = errors.Join(err, fmt.Errorf("tui: close session: %w", cerr))
	}
	if rec != nil {
		if rerr := rec.Close(); rerr != nil {
			err = errors.Join(err, rerr)
		}
	}
	if opts.Markdown != "" {
		if werr := writeMarkdownFile(opts.Markdown, m); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	return err
}

// newRenderer returns the renderer of every style: colours as the
// terminal has them, none with noColor or a non-empty NO_COLOR.
func newRenderer(out io.Writer, noColor bool) *lipgloss.Renderer {
	r := lipgloss.NewRenderer(out)
	if noColor || os.Getenv("NO_COLOR") != "" {
		r.SetColorProfile(termenv.Ascii)
	}
	return r
}
