package main

import (
	"context"
	"path"
	"strings"

	"github.com/kubesim/kubesim/hack/internal/kubesimserve"
)

// captureCLI writes what kubesim's command line itself prints: its
// version and the help of the root command and of each subcommand, under
// cli/.
func captureCLI(ctx context.Context, k kubesim, w *writer) error {
	outputs := []struct {
		file string
		args []string
	}{
		{"version.txt", []string{"version"}},
		{"help.txt", []string{"--help"}},
	}
	for _, sub := range []string{"play", "serve", "scenarios", "etcd", "node", "bench", "version"} {
		outputs = append(outputs, struct {
			file string
			args []string
		}{"help-" + sub + ".txt", []string{sub, "--help"}})
	}
	for _, o := range outputs {
		c := k.run(ctx, o.args...)
		if err := ctx.Err(); err != nil {
			return err // interrupted: a command cut short is no output
		}
		if err := w.write(path.Join("cli", o.file), c.render()); err != nil {
			return err
		}
	}
	return nil
}

// serveOutput is the text of cli/serve.txt: the command line serve was
// started with and what it printed until it was ready.
func serveOutput(dataDir, banner string) string {
	var b strings.Builder
	b.WriteString("$ kubesim " + strings.Join(kubesimserve.Args(dataDir), " ") + "\n")
	b.WriteString("(still running: its output up to the ready line)\n")
	section(&b, "stdout", banner)
	return b.String()
}
