package main

import (
	"regexp"
	"sort"
	"strings"
	"text/tabwriter"
)

// kubectl lays its tables out with a tabwriter: each column as wide as
// its widest cell, plus padding. Normalization changes the width of
// cells (an age, a cluster IP), so a table is handled in two rules: cut
// into cells (tab-separated) on the text as captured, where the columns
// still line up with the header; laid out again once its cells are
// normalized.

// cellSep separates the cells of a row that does not line up with its
// header: kubectl pads each cell with at least 2 spaces, and no cell it
// prints here has two spaces in a row.
var cellSep = regexp.MustCompile(` {2,}`)

// headerCell is a cell of a header: words with one space between them
// ("NOMINATED NODE").
var headerCell = regexp.MustCompile(`\S+(?: \S+)*`)

// toCells rewrites the table that is the whole of body (kubectl get's)
// with its cells separated by tabs.
func toCells(body string) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) < 2 {
		return body
	}
	return strings.Join(cutTable(lines, ""), "\n") + "\n"
}

// cutTable cuts each line after indent into cells where the header's
// (the first line's) cells start, so that an empty cell stays one; a row
// that runs into the next column is cut at its runs of spaces.
func cutTable(lines []string, indent string) []string {
	var starts []int
	for _, m := range headerCell.FindAllStringIndex(strings.TrimPrefix(lines[0], indent), -1) {
		starts = append(starts, m[0])
	}
	out := make([]string, len(lines))
	for i, line := range lines {
		out[i] = indent + strings.Join(cutRow(strings.TrimPrefix(line, indent), starts), "\t")
	}
	return out
}

// cutRow cuts line into cells starting at starts.
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
				return cellSep.Split(strings.TrimRight(line, " "), -1)
			}
		}
		cells = append(cells, strings.TrimRight(line[start:end], " "))
	}
	return cells
}

// eventsBlock finds kubectl describe's Events table: the lines after
// "Events:", indented by two spaces, the first its header.
func eventsBlock(lines []string) (from, to int, ok bool) {
	for i, line := range lines {
		if line != "Events:" {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		return i + 1, j, j-i-1 >= 2
	}
	return 0, 0, false
}

// eventsToCells rewrites the Events table of a describe's output with
// its cells separated by tabs.
func eventsToCells(body string) string {
	lines := strings.Split(body, "\n")
	from, to, ok := eventsBlock(lines)
	if !ok {
		return body
	}
	copy(lines[from:to], cutTable(lines[from:to], "  "))
	return strings.Join(lines, "\n")
}

// ageColumns are the headers of the columns holding an age ("5s",
// "2m3s", "10s (x2 over 20s)"): the time since something happened.
var ageColumns = map[string]bool{"AGE": true, "Age": true, "LAST SEEN": true}

// dashes matches the cells of the line under a header ("----").
var dashes = regexp.MustCompile(`^-+$`)

// layOut lays out again tab-separated lines, the first the header, after
// indent: ages blanked; each run of rows whose names (first cells) are
// equal sorted when sortRows (kubectl sorts rows by name, and names that
// normalization made equal came in any order); columns as wide as their
// widest cell plus padding (3 in get's tables, 2 in describe's).
func layOut(lines []string, indent string, padding int, sortRows bool) []string {
	rows := make([][]string, len(lines))
	for i, line := range lines {
		rows[i] = strings.Split(strings.TrimPrefix(line, indent), "\t")
	}
	for c, h := range rows[0] {
		for _, r := range rows[1:] {
			if ageColumns[h] && c < len(r) && r[c] != "" && !dashes.MatchString(r[c]) {
				r[c] = "<age>"
			}
		}
	}
	for i := 1; sortRows && i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[j][0] == rows[i][0] {
			j++
		}
		run := rows[i:j]
		sort.SliceStable(run, func(a, b int) bool { return strings.Join(run[a], "\t") < strings.Join(run[b], "\t") })
		i = j
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, padding, ' ', 0)
	for _, r := range rows {
		tw.Write([]byte(indent + strings.Join(r, "\t") + "\n"))
	}
	tw.Flush()
	return strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
}

// layOutTable lays out again the tab-separated table that is the whole
// of body.
func layOutTable(body string, sortRows bool) string {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) < 2 || !strings.Contains(lines[0], "\t") {
		return body
	}
	return strings.Join(layOut(lines, "", 3, sortRows), "\n") + "\n"
}

// layOutEvents lays out again the tab-separated Events table of a
// describe's output.
func layOutEvents(body string) string {
	lines := strings.Split(body, "\n")
	from, to, ok := eventsBlock(lines)
	if !ok || !strings.Contains(lines[from], "\t") {
		return body
	}
	copy(lines[from:to], layOut(lines[from:to], "  ", 2, false))
	return strings.Join(lines, "\n")
}
