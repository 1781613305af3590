package main

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPlayAPIServerStartup: the apiserver-startup lesson, played, shows
// what kube-apiserver does, from its own run: the three servers of the
// chain built in CreateServerChain's order, each on the one before;
// /readyz answered by the aggregator's own mux (no hop to kube-apiserver);
// and the /livez and /readyz lists as the run answered them, whose
// difference is the one the narration states.
func TestPlayAPIServerStartup(t *testing.T) {
	code, out, errs := runMain(t, "", "play", "apiserver-startup", "--plain", "--speed", "0", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	last := -1
	for _, want := range []string{
		"=== Step 3/6 · server-chain ===",
		"  1. apiextensions-apiserver, delegate the not-found handler (+",
		"  2. kube-apiserver, delegate apiextensions-apiserver (+",
		"     the core (legacy) group at /api/v1: WebService /api/v1 (",
		"  3. kube-aggregator, delegate kube-apiserver (+",
		"  a request goes the other way: the filters, kube-aggregator → kube-apiserver → apiextensions-apiserver → the not-found handler",
		"=== Step 4/6 · readyz ===",
	} {
		at := strings.Index(out, want)
		if at < 0 || at < last {
			t.Fatalf("%q missing or out of order (at %d, previous at %d):\n%s", want, at, last, out)
		}
		last = at
	}
	readyz := section(out, "=== Step 4/6 · readyz ===", "=== Step 5/6")
	if !regexp.MustCompile(`aggregator\s+served\s+aggregator: its non-go-restful mux serves /readyz\n`).MatchString(readyz) ||
		strings.Contains(readyz, "delegated") || strings.Contains(readyz, "kube-apiserver served") {
		t.Errorf("GET /readyz?verbose's trace: want it served by the aggregator's mux, with no delegation:\n%s", readyz)
	}
	checkHealthLists(t, section(out, "=== Step 6/6 · livez ===", "\n✓"))
}

// checkHealthLists checks the livez step against its own evidence: the
// lists it printed, their difference, and the narration's claims.
func checkHealthLists(t *testing.T, step string) {
	t.Helper()
	lists := map[string][]string{}
	for _, m := range regexp.MustCompile(`GET (/\w+)\?verbose: (\d+) checks\n\s+(.*)\n`).FindAllStringSubmatch(step, -1) {
		names := strings.Split(m[3], ", ")
		if m[2] != strconv.Itoa(len(names)) {
			t.Errorf("%s: %s checks said, %d listed", m[1], m[2], len(names))
		}
		lists[m[1]] = names
	}
	live, ready := lists["/livez"], lists["/readyz"]
	if len(live) == 0 || len(ready) == 0 {
		t.Fatalf("the livez step printed no lists:\n%s", step)
	}
	var onlyReady []string
	for _, n := range ready {
		if !slices.Contains(live, n) {
			onlyReady = append(onlyReady, n)
		}
	}
	for _, n := range live {
		if !slices.Contains(ready, n) {
			t.Errorf("%s is on /livez only; the narration says every check of /livez is on /readyz", n)
		}
	}
	if got := strings.Join(onlyReady, ", "); got != "etcd-readiness, informer-sync, shutdown" {
		t.Errorf("only on /readyz (from the lists printed): %s; the narration says etcd-readiness, informer-sync and shutdown", got)
	}
	for _, want := range []string{
		"only /readyz has etcd-readiness,\ninformer-sync and shutdown", "only on /readyz: " + strings.Join(onlyReady, ", "), "only on /livez: none",
	} {
		if !strings.Contains(strings.Join(strings.Fields(step), " "), strings.Join(strings.Fields(want), " ")) {
			t.Errorf("the livez step lacks %q:\n%s", want, step)
		}
	}
	if ready[len(ready)-1] != "shutdown" {
		t.Errorf("/readyz's last check is %s, want shutdown (the narration's)", ready[len(ready)-1])
	}
}

// section is out from the first from to the next to after it.
func section(out, from, to string) string {
	i := strings.Index(out, from)
	if i < 0 {
		return ""
	}
	s := out[i:]
	if j := strings.Index(s[len(from):], to); j >= 0 {
		return s[:len(from)+j]
	}
	return s
}

// TestPlayAPIServerStartupZh: in Chinese, the startup trace and the
// chain's build keep kube-apiserver's tokens (Complete, Run, the step
// and server names, addresses) and say kubesim's own words in Chinese:
// every Run line but a hook's name has Chinese in its detail, and none
// of kubesim's English sentences is left.
func TestPlayAPIServerStartupZh(t *testing.T) {
	code, out, errs := runMain(t, "", "play", "apiserver-startup", "--plain", "--speed", "0", "--lang", "zh", "--data-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d, want 0; stderr:\n%s\nstdout:\n%s", code, errs, out)
	}
	trace := section(out, "本集群的启动过程", "=== ")
	lines := regexp.MustCompile(`(?m)^\s+\+\S+\s+(Complete|Validate|Run)\s+(\S+)\s+(\S+)\s+(.*)$`).FindAllStringSubmatch(trace, -1)
	if len(lines) < 8 {
		t.Fatalf("the startup trace has %d steps:\n%s", len(lines), trace)
	}
	han := regexp.MustCompile(`\p{Han}`)
	for _, m := range lines {
		if !han.MatchString(m[3]) {
			t.Errorf("outcome %q of %s %s is not in Chinese", m[3], m[1], m[2])
		}
		if m[2] != "poststarthook" && !han.MatchString(m[4]) {
			t.Errorf("%s %s: detail %q has no Chinese", m[1], m[2], m[4])
		}
	}
	build := section(out, "$ serverChainBuild", "\n→ ") // the result's message, as every step's, is English
	for _, english := range []string{"kubesim's own step", "accepting requests", "every option", "the not-found handler", ", delegate ", "installed by", "routes)"} {
		if strings.Contains(trace, english) || strings.Contains(build, english) {
			t.Errorf("zh output still has %q:\n%s\n%s", english, trace, build)
		}
	}
	if !strings.Contains(build, "kube-aggregator → kube-apiserver → apiextensions-apiserver → not-found 处理器") {
		t.Errorf("the chain's order is not said in Chinese:\n%s", build)
	}
}
