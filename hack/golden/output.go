package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// writer writes each output, normalized, as one file under out, and as
// captured under raw when raw is set. It is used from one goroutine.
type writer struct {
	out, raw string
	// names are the files written so far, relative to out.
	names map[string]bool
}

// newWriter returns a writer into out (and raw, when not empty); each
// must be missing or an empty directory, so that a diff of two runs
// shows no file left over from an earlier one.
func newWriter(out, raw string) (*writer, error) {
	for _, dir := range []string{out, raw} {
		if dir == "" {
			continue
		}
		if err := emptyDir(dir); err != nil {
			return nil, err
		}
	}
	return &writer{out: out, raw: raw, names: map[string]bool{}}, nil
}

// emptyDir creates dir, or checks that it is empty.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	case err != nil:
		return err
	case len(entries) > 0:
		return fmt.Errorf("%s is not empty: give a new directory, so that no file of an earlier run stays", dir)
	}
	return nil
}

// write writes text as the output name (a slash-separated relative path,
// named for what it is). Writing one name twice is an error: each output
// has a file of its own.
func (w *writer) write(name, text string) error {
	if w.names[name] {
		return fmt.Errorf("output %s written twice", name)
	}
	w.names[name] = true
	if w.raw != "" {
		if err := writeFile(w.raw, name, text); err != nil {
			return err
		}
	}
	return writeFile(w.out, name, normalize(text))
}

// writeFile writes text to dir/name, creating its directories.
func writeFile(dir, name, text string) error {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// count is how many outputs were written.
func (w *writer) count() int { return len(w.names) }

// renormalize writes every file of raw (a -raw directory of an earlier
// run) through w again: the outputs of that run under the current rules.
func renormalize(raw string, w *writer) error {
	var names []string
	err := filepath.WalkDir(raw, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(raw, path)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(raw, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		if err := w.write(name, string(b)); err != nil {
			return err
		}
	}
	return nil
}
