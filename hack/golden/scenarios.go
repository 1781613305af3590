package main

import (
	"context"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// langs are the languages of the narration; every scenario is played in
// each.
var langs = []string{"en", "zh"}

// kubesim runs the kubesim binary bin.
type kubesim struct {
	r   runner
	bin string
}

// run runs kubesim with args.
func (k kubesim) run(ctx context.Context, args ...string) capture {
	return k.r.run(ctx, "kubesim", k.bin, args...)
}

// captureScenarios writes the scenario list in each language, then the
// plain output of every scenario whose name matches only, in each
// language, under scenarios/. The scenarios are played one after the
// other, at speed 0, with nothing on stdin: --plain without --step asks
// nothing.
func captureScenarios(ctx context.Context, k kubesim, only *regexp.Regexp, w *writer) error {
	var names []string
	for _, lang := range langs {
		c := k.run(ctx, "scenarios", "--lang", lang)
		if c.exit != 0 {
			return fmt.Errorf("%s: exit %d: %v %s", c.cmdline, c.exit, c.err, c.stderr)
		}
		if err := w.write(path.Join("scenarios", "list."+lang+".txt"), c.render()); err != nil {
			return err
		}
		names = scenarioNames(c.stdout)
	}
	if len(names) == 0 {
		return fmt.Errorf("kubesim scenarios listed no scenario")
	}
	for _, name := range names {
		if !only.MatchString(name) {
			continue
		}
		for _, lang := range langs {
			c := k.run(ctx, "play", name, "--plain", "--speed", "0", "--lang", lang)
			if err := ctx.Err(); err != nil {
				return err // interrupted: a play cut short is no output
			}
			if err := w.write(path.Join("scenarios", name+"."+lang+".txt"), c.render()); err != nil {
				return err
			}
		}
	}
	return nil
}

// scenarioNames reads the names from the table `kubesim scenarios`
// prints first: the first column of the lines after the header, up to
// the first empty line.
func scenarioNames(list string) []string {
	var names []string
	for i, line := range strings.Split(list, "\n") {
		if i == 0 {
			continue // NAME LEVEL TITLE
		}
		if strings.TrimSpace(line) == "" {
			break
		}
		names = append(names, strings.Fields(line)[0])
	}
	return names
}
