package main

import (
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

// cellSep separates the cells of a table as kubectl prints it: its
// tabwriter pads each cell with at least 2 spaces, and no cell kubectl
// prints here has two spaces in a row.
var cellSep = regexp.MustCompile(` {2,}`)

// ageColumns are the headers of the columns holding an age ("5s",
// "2m3s", "10s (x2 over 20s)"): the time since something happened.
var ageColumns = map[string]bool{"AGE": true, "Age": true, "LAST SEEN": true}

// table is a table kubectl printed: a header and rows of cells.
type table struct {
	indent string
	// padding is the least space after a cell: 3 in kubectl get's
	// tables, 2 in describe's.
	padding int
	header  []string
	rows    [][]string
}

// dashes matches the cells of the line under a header ("----").
var dashes = regexp.MustCompile(`^-+$`)

// headerCell is a cell of a header: words with one space between them
// ("NOMINATED NODE").
var headerCell = regexp.MustCompile(`\S+(?: \S+)*`)

// parseTable reads lines (without their newlines) as a table whose
// first line is the header; each line's indent is cut first. A row is cut
// where the header's cells start, so that an empty cell stays one; a row
// not aligned with the header is cut at its runs of spaces.
func parseTable(lines []string, indent string, padding int) table {
	t := table{indent: indent, padding: padding}
	var starts []int
	for i, line := range lines {
		line = strings.TrimPrefix(line, indent)
		if i == 0 {
			for _, m := range headerCell.FindAllStringIndex(line, -1) {
				starts = append(starts, m[0])
			}
			t.header = cellSep.Split(line, -1)
			continue
		}
		t.rows = append(t.rows, cutRow(line, starts))
	}
	return t
}

// cutRow cuts line into cells starting at starts, or at its runs of
// spaces when a cell runs into the next one's start.
func cutRow(line string, starts []int) []string {
	var cells []string
	for i, start := range starts {
		if start > len(line) {
			cells = append(cells, "")
			continue
		}
		end := len(line)
		if i+1 < len(starts) && starts[i+1] < len(line) {
			end = starts[i+1]
			if line[end-1] != ' ' {
				return cellSep.Split(line, -1)
			}
		}
		cells = append(cells, strings.TrimRight(line[start:end], " "))
	}
	return cells
}

// blankAges replaces every cell of an age column by <age>.
func (t table) blankAges() {
	for c, h := range t.header {
		if !ageColumns[h] {
			continue
		}
		for _, r := range t.rows {
			if c < len(r) && r[c] != "" && !dashes.MatchString(r[c]) {
				r[c] = "<age>"
			}
		}
	}
}

// sortTies sorts each run of adjacent rows whose first cells are equal:
// kubectl sorts rows by name, and names that normalization made equal
// (generated suffixes) came in any order.
func (t table) sortTies() {
	for i := 0; i < len(t.rows); {
		j := i + 1
		for j < len(t.rows) && t.rows[j][0] == t.rows[i][0] {
			j++
		}
		run := t.rows[i:j]
		sort.SliceStable(run, func(a, b int) bool { return strings.Join(run[a], "\t") < strings.Join(run[b], "\t") })
		i = j
	}
}

// String lays the table out again as kubectl's tabwriter does (each
// column as wide as its widest cell, plus the padding), so that cells that
// normalization made shorter or longer leave no trace in the widths.
func (t table) String() string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, t.padding, ' ', 0)
	for _, r := range append([][]string{t.header}, t.rows...) {
		tw.Write([]byte(t.indent + strings.Join(r, "\t") + "\n"))
	}
	tw.Flush()
	return b.String()
}

// realignTable normalizes a table printed by kubectl get (or
// api-resources), the whole of body: ages blanked, rows of equal
// names sorted when sortRows, widths recomputed.
func realignTable(body string, sortRows bool) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) < 2 {
		return body
	}
	t := parseTable(lines, "", 3)
	t.blankAges()
	if sortRows {
		t.sortTies()
	}
	return t.String()
}

// realignEvents normalizes the Events table of kubectl describe: the
// lines after "Events:" indented by two spaces.
func realignEvents(body string) string {
	lines := strings.Split(body, "\n")
	for i, line := range lines {
		if line != "Events:" {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		if j-i-1 < 2 {
			continue
		}
		t := parseTable(lines[i+1:j], "  ", 2)
		t.blankAges()
		rendered := strings.Split(strings.TrimSuffix(t.String(), "\n"), "\n")
		out := append(append(append([]string{}, lines[:i+1]...), rendered...), lines[j:]...)
		return strings.Join(out, "\n")
	}
	return body
}
