package flow

import (
	"bytes"
	"encoding/json"
	"strings"
)

// diffOp is one line of a line diff.
type diffOp struct {
	Kind byte // ' ', '+' or '-'
	Line string
}

// indentJSON indents a JSON value for reading and diffing, one field a
// line; anything else is returned as it is.
func indentJSON(b []byte) string {
	var out bytes.Buffer
	if err := json.Indent(&out, bytes.TrimSpace(b), "", "  "); err != nil {
		return string(b)
	}
	return out.String()
}

// lineDiff returns the line diff turning a into b (a longest common
// subsequence, fine for objects of a few hundred lines).
func lineDiff(a, b string) []diffOp {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	if a == "" {
		x = nil
	}
	n, m := len(x), len(y)
	// lcs[i][j] is the LCS length of x[i:] and y[j:].
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []diffOp
	i, j := 0, 0
	for i < n && j < m {
		switch {
		case x[i] == y[j]:
			ops = append(ops, diffOp{' ', x[i]})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			ops = append(ops, diffOp{'-', x[i]})
			i++
		default:
			ops = append(ops, diffOp{'+', y[j]})
			j++
		}
	}
	for ; i < n; i++ {
		ops = append(ops, diffOp{'-', x[i]})
	}
	for ; j < m; j++ {
		ops = append(ops, diffOp{'+', y[j]})
	}
	return ops
}

// hunks keeps the changed lines of ops with context lines around them;
// a run of unchanged lines left out becomes one "…" line (Kind '~').
func hunks(ops []diffOp, context int) []diffOp {
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.Kind == ' ' {
			continue
		}
		for k := max(0, i-context); k <= min(len(ops)-1, i+context); k++ {
			keep[k] = true
		}
	}
	var out []diffOp
	skipped := false
	for i, op := range ops {
		if keep[i] {
			out = append(out, op)
			skipped = false
			continue
		}
		if !skipped {
			out = append(out, diffOp{'~', "…"})
			skipped = true
		}
	}
	return out
}
