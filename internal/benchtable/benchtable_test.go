package benchtable

import (
	"bytes"
	"strings"
	"testing"
)

const sampleOutput = `goos: linux
BenchmarkPodCreate/fsync=on/clients=16-2   2000  1297554 ns/op  770.7 api-creates/s  0.2321 api/etcd-ratio  3320 etcd-puts/s
    bench_test.go:1: a log line
BenchmarkPodCreate/fsync=on/clients=16-2   2000  1297554 ns/op  800 api-creates/s  0.30 api/etcd-ratio  3000 etcd-puts/s
BenchmarkPodCreate/fsync=on/clients=16-2   2000  1297554 ns/op  700 api-creates/s  0.20 api/etcd-ratio  3500 etcd-puts/s
BenchmarkPodToRunning-2  2000  1 ns/op  500 pods-running/s  6000 etcd-puts/s  0.0833 e2e/etcd-ratio  2000 relay-creates/s  0.25 e2e/relay-ratio  0 rewatches/op  9 etcd-writes/pod
BenchmarkScheduling/nodes=1000-2  20000  100 ns/op  10000 pods/s
BenchmarkScheduling/nodes=1000/recorder-without-readers-2  20000  100 ns/op  9500 pods/s  0.95 x-no-recorder
PASS
ok  	github.com/kubesim/kubesim/cluster	6.890s
`

// TestParse reads benchmark lines and skips the rest.
func TestParse(t *testing.T) {
	results, err := Parse(strings.NewReader(sampleOutput))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 6 {
		t.Fatalf("got %d results, want 6: %+v", len(results), results)
	}
	r := results[0]
	if r.Name != "BenchmarkPodCreate/fsync=on/clients=16" || r.Iterations != 2000 || r.Metrics["api/etcd-ratio"] != 0.2321 {
		t.Errorf("first result = %+v", r)
	}
}

// TestBuild: min/median/max over the runs, a derived figure, and a row
// that did not run.
func TestBuild(t *testing.T) {
	results, _ := Parse(strings.NewReader(sampleOutput))
	lines := Build(Rows, results)
	byWhat := map[string]Line{}
	for _, l := range lines {
		byWhat[l.Bench+" "+l.Unit] = l
	}
	p1 := byWhat["BenchmarkPodCreate/fsync=on/clients=16 ratio"]
	if p1.Spread != (Spread{Min: 0.20, Median: 0.2321, Max: 0.30, Runs: 3}) || p1.verdict() != "not met" {
		t.Errorf("P1 = %+v, %s", p1.Spread, p1.verdict())
	}
	if len(p1.Context) != 2 || p1.Context[0] != "api-creates/s 771" {
		t.Errorf("P1 context = %q", p1.Context)
	}
	// P2's rows: the share of raw puts a pod's writes allow (500 × 9 /
	// 6000), then the rate beside each baseline, as the run reported it.
	var p2 []Line
	for _, l := range lines {
		if l.ID == "P2" {
			p2 = append(p2, l)
		}
	}
	if len(p2) != 3 || p2[0].Spread.Median != 0.75 || p2[0].verdict() != "met" ||
		p2[1].Spread.Median != 0.0833 || p2[2].Spread.Median != 0.25 || p2[2].verdict() != "" {
		t.Errorf("P2 rows = %+v", p2)
	}
	p5 := byWhat["BenchmarkScheduling/nodes=1000/recorder-without-readers ratio"]
	if p5.Spread.Median != 0.95 || p5.verdict() != "met" {
		t.Errorf("P5 without readers = %+v, %s", p5.Spread, p5.verdict())
	}
	if l := byWhat["BenchmarkPodLatency/nodes=100 ms"]; l.verdict() != "not run" || l.figure() != "—" {
		t.Errorf("a row without results: %s %s", l.figure(), l.verdict())
	}
}

// TestWriteText keeps the terminal table within 80 columns.
func TestWriteText(t *testing.T) {
	results, _ := Parse(strings.NewReader(sampleOutput))
	var buf bytes.Buffer
	if err := WriteText(&buf, Build(Rows, results)); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(buf.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	if !strings.Contains(buf.String(), "0.2 / 0.232 / 0.3 ratio (3 runs)   goal ≥ 0.6   not met") {
		t.Errorf("P1 line missing:\n%s", buf.String())
	}
}

// TestArgs: --quick takes the quick size and pattern.
func TestArgs(t *testing.T) {
	r := Run{Package: "./cluster", Pattern: "^A$", QuickPattern: "^A$/^small$", Benchtime: "10x", Quick: "2x"}
	if got := strings.Join(r.Args(true, 3), " "); got != "test ./cluster -run ^$ -bench ^A$/^small$ -benchtime 2x -count 3 -timeout 60m" {
		t.Errorf("quick args = %s", got)
	}
	if got := strings.Join(r.Args(false, 1), " "); !strings.Contains(got, "-bench ^A$ -benchtime 10x -count 1") {
		t.Errorf("full args = %s", got)
	}
}

// TestPeerRows: the peer's rows take the kubesim/peer ratio, and without
// the peer they say why they did not run, within 80 columns.
func TestPeerRows(t *testing.T) {
	out := sampleOutput + "BenchmarkPodCreateVsPeer/storage=json/peer-audit=on/peer-apf=on/clients=16-2  1  3000000 ns/op  2.5 kubesim/peer-ratio  500 kubesim-creates/s  200 peer-creates/s\n"
	results, _ := Parse(strings.NewReader(out))
	lines := Build(Rows, results)
	for _, bench := range PeerBenches {
		MarkSkipped(lines, bench, PeerNotBuilt)
	}
	var buf bytes.Buffer
	if err := WriteText(&buf, lines); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	for _, want := range []string{
		"P1 peer kubesim / real kube-apiserver pod creates/s, JSON, both audit\n     2.50 / 2.50 / 2.50 ratio (1 runs)   goal ≥ 2   met\n     kubesim-creates/s 500, peer-creates/s 200\n",
		"P1 peer … protobuf storage on both\n     —   goal ≥ 2   skipped: peer not built (../shared/peer/build --all)\n",
		"P4 peer 1,000 pod watchers over HTTPS: p99 event delay, kubesim / peer\n     —   goal (none)   skipped: peer not built (../shared/peer/build --all)\n",
		"P1   API pod creates / raw etcd puts", // the other rows as they were
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("%d columns: %q", n, line)
		}
	}
	if l := Build(Rows, nil)[0]; l.verdict() != "not run" {
		t.Errorf("an unmarked row without runs: %q", l.verdict())
	}
}
