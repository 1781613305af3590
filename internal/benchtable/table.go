package benchtable

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Line is one row of the table with its figures.
type Line struct {
	Row
	// Spread is the row's figure over the runs; Runs 0: not run.
	Spread Spread
	// Context are the medians of the row's context metrics, in order
	// (missing metrics left out).
	Context []string
	// Skipped, if set, is why the row's benchmark did not run.
	Skipped string
}

// Build computes the table's lines from the results of every run.
func Build(rows []Row, results []Result) []Line {
	byName := map[string][]Result{}
	for _, r := range results {
		byName[r.Name] = append(byName[r.Name], r)
	}
	lines := make([]Line, 0, len(rows))
	for _, row := range rows {
		lines = append(lines, buildLine(row, byName))
	}
	return lines
}

func buildLine(row Row, byName map[string][]Result) Line {
	line := Line{Row: row, Spread: spreadOf(figures(row.Figure, byName[row.Bench]))}
	for _, unit := range row.Context {
		var cs []float64
		for _, r := range byName[row.Bench] {
			if v, ok := r.Metrics[unit]; ok {
				cs = append(cs, v)
			}
		}
		if len(cs) > 0 {
			line.Context = append(line.Context, unit+" "+number(spreadOf(cs).Median))
		}
	}
	return line
}

func figures(f func(map[string]float64) (float64, bool), runs []Result) []float64 {
	var vs []float64
	for _, r := range runs {
		if v, ok := f(r.Metrics); ok {
			vs = append(vs, v)
		}
	}
	return vs
}

// MarkSkipped gives reason to every line of the benchmark bench (a
// top-level name, such as PeerBench) that has no runs.
func MarkSkipped(lines []Line, bench, reason string) {
	for i := range lines {
		if lines[i].Spread.Runs == 0 && benchOf(lines[i].Bench) == bench {
			lines[i].Skipped = reason
		}
	}
}

// verdict says whether the line's median meets its goal.
func (l Line) verdict() string {
	switch {
	case l.Spread.Runs == 0 && l.Skipped != "":
		return "skipped: " + l.Skipped
	case l.Spread.Runs == 0:
		return "not run"
	case l.Met == nil:
		return ""
	case l.Met(l.Spread.Median):
		return "met"
	default:
		return "not met"
	}
}

// figure is "min / median / max unit (n runs)".
func (l Line) figure() string {
	if l.Spread.Runs == 0 {
		return "—"
	}
	s := l.Spread
	return fmt.Sprintf("%s / %s / %s %s (%d runs)", number(s.Min), number(s.Median), number(s.Max), l.Unit, s.Runs)
}

// WriteText writes the table for a terminal: each row in two or three
// lines no wider than 80 columns.
func WriteText(w io.Writer, lines []Line) error {
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-4s %s\n     %s   goal %s   %s\n", l.ID, l.What, l.figure(), l.Goal, l.verdict()); err != nil {
			return err
		}
		if len(l.Context) > 0 {
			if _, err := fmt.Fprintf(w, "     %s\n", strings.Join(l.Context, ", ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteMarkdown writes the table as a Markdown table.
func WriteMarkdown(w io.Writer, lines []Line) error {
	if _, err := fmt.Fprintln(w, "| row | what | min / median / max | goal | | beside it (medians) |\n|---|---|---|---|---|---|"); err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", l.ID, l.What, l.figure(), l.Goal, l.verdict(), strings.Join(l.Context, ", ")); err != nil {
			return err
		}
	}
	return nil
}

// number prints v with about three significant digits, no exponent.
func number(v float64) string {
	switch a := max(v, -v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a >= 0.001:
		return strconv.FormatFloat(v, 'g', 3, 64)
	default:
		return strconv.FormatFloat(v, 'f', 6, 64)
	}
}
