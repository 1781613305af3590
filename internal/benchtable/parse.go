// Package benchtable turns the output of go test -bench into the table of
// issue 15's rows: each row one figure of one benchmark (or a figure
// derived from several of its metrics), its goal, and the minimum, median
// and maximum over the runs (-count). It only reads and prints; running
// the benchmarks is the caller's (kubesim bench).
package benchtable

import (
	"bufio"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Result is one line of benchmark output: one run of one benchmark.
type Result struct {
	// Name is the benchmark's full name without the -GOMAXPROCS suffix
	// ("BenchmarkPodCreate/fsync=on/clients=16").
	Name string
	// Iterations is b.N.
	Iterations int
	// Metrics are the reported values by unit ("ns/op", "api/etcd-ratio").
	Metrics map[string]float64
}

// procsSuffix is the -N testing appends to a name when GOMAXPROCS > 1.
var procsSuffix = regexp.MustCompile(`-\d+$`)

// Parse reads go test -bench output and returns its result lines in
// order; other lines (logs, PASS, ok) are skipped.
func Parse(r io.Reader) ([]Result, error) {
	var out []Result
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if res, ok := parseLine(sc.Text()); ok {
			out = append(out, res)
		}
	}
	return out, sc.Err()
}

// parseLine reads "BenchmarkX-2  <N>  <value> <unit> ..." lines.
func parseLine(line string) (Result, bool) {
	fields := strings.Fields(line)
	if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") || len(fields)%2 != 0 {
		return Result{}, false
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		return Result{}, false
	}
	res := Result{Name: procsSuffix.ReplaceAllString(fields[0], ""), Iterations: n, Metrics: map[string]float64{}}
	for i := 2; i+1 < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return Result{}, false
		}
		res.Metrics[fields[i+1]] = v
	}
	return res, true
}

// Spread is the minimum, median and maximum of a figure over its runs.
type Spread struct {
	Min, Median, Max float64
	Runs             int
}

// spreadOf computes the spread of vs; Runs is 0 for none.
func spreadOf(vs []float64) Spread {
	if len(vs) == 0 {
		return Spread{}
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	median := s[len(s)/2]
	if len(s)%2 == 0 {
		median = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return Spread{Min: s[0], Median: median, Max: s[len(s)-1], Runs: len(s)}
}
