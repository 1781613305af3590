package main

import (
	"regexp"
	"strings"
)

var (
	// boardHead and boardEnd bound the figures of watchCompare's
	// transcript: its scoreboard and what follows it, up to the step's
	// requests.
	boardHead = regexp.MustCompile(`^  (?:client +requests|客户端 +请求数)`)
	boardEnd  = regexp.MustCompile(`^  (?:the API server's trace|API Server 对本步骤)|^\S`)
	// figure is a number as the scoreboard writes it (4,369; 5/6), and
	// figures a list of them (changes 1, 2, 4; 第 3、4 次).
	figure  = regexp.MustCompile(`\d{1,3}(?:,\d{3})*(?:/\d+)?`)
	figures = regexp.MustCompile(`<n>(?:(?:, |、)<n>)*`)
	changes = regexp.MustCompile(`\bchanges? <n>…`)
	signed  = regexp.MustCompile(`-<dur>`)
	spaces  = regexp.MustCompile(`(\S) {2,}`)
	// figureLine is a line of figures: a client's row (of the board, of
	// the bytes on the wire), how many of the poller's answers were
	// unchanged.
	figureLine = regexp.MustCompile(`^ +(?:poll|long-poll|watch|轮询|长轮询) |of its \d+ answers|个响应里有`)
	// pollVerdict says which changes the poller saw as states of their
	// own: all of them, or not.
	pollVerdict = regexp.MustCompile(`^  (poll: |轮询：).*$`)
)

// blankScoreboard blanks the figures of each watchCompare scoreboard:
// how many requests each client made, the bytes, how many changes it saw
// and which it jumped over, how late they came, and whether the poller
// saw every change; the columns, of figures now alike, are not aligned.
// At speed 0 the writer and the clients race, and these are what the
// race gave.
func blankScoreboard(s string) string {
	lines := strings.Split(s, "\n")
	in := false
	for i, line := range lines {
		switch {
		case boardHead.MatchString(line):
			in = true
			continue
		case boardEnd.MatchString(line):
			in = false
		}
		if !in {
			continue
		}
		line = pollVerdict.ReplaceAllString(line, "  ${1}<every change, or not: as the race went>")
		if !figureLine.MatchString(line) {
			lines[i] = line
			continue
		}
		line = signed.ReplaceAllString(line, "<dur>")
		line = figure.ReplaceAllString(line, "<n>")
		line = figures.ReplaceAllString(line, "<n>…")
		line = changes.ReplaceAllString(line, "changes <n>…")
		lines[i] = spaces.ReplaceAllString(line, "$1  ")
	}
	return strings.Join(lines, "\n")
}
