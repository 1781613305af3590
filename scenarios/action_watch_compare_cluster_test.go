package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// TestWatchCompareOnCluster plays a comparison against a real cluster at
// speed 0 and checks what holds by construction: the writer's changes
// are distinct states; the watch sees each on one request and
// connection; the long-poller sees each with one GET and one round per
// change, dialing again for each round after the first; the poller makes
// at least two requests; every client moved bytes, more of them on the
// wire with TLS than as HTTP. The action keeps real time at speed 0: the
// writer waited its spacing (1s by default) before each change, and the
// transcript says so.
func TestWatchCompareOnCluster(t *testing.T) {
	s, err := Parse("compare.yaml", []byte(`name: compare
title: {en: Compare, zh: 比较}
summary: {en: Three clients, zh: 三个客户端}
cluster: {nodes: 1}
steps:
  - narration: {en: a lease, zh: 一个租约}
    apply: |
      {apiVersion: coordination.k8s.io/v1, kind: Lease, metadata: {name: ticker}, spec: {holderIdentity: writer}}
  - narration: {en: compare, zh: 比较}
    watchCompare: {kind: Lease, name: ticker, changes: 3}
    expect:
      - scoreboard: {client: watch, seesEvery: true, requests: 1, connections: 1}
      - scoreboard: {client: longpoll, seesEvery: true, requests: 4, connectionsAtLeast: 3}
      - scoreboard: {client: poll, requestsAtLeast: 2}
`))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	res := playLab(t, s).results[1]
	t.Logf("transcript:\n%s", strings.Join(res.HTTP, "\n"))
	ev, ok := res.Evidence.(*WatchCompareEvidence)
	if !ok || len(ev.Changes) != 3 || len(ev.Clients) != 3 {
		t.Fatalf("evidence %+v, want 3 changes and 3 clients", res.Evidence)
	}
	rvs := map[string]bool{}
	for i, c := range ev.Changes {
		rvs[c.ResourceVersion] = true
		if least := float64(i+1) * 1000; c.WrittenMs < least {
			t.Errorf("change %d written at +%.1fms: want at least +%.0fms (the writer waits its 1s spacing before each change, whatever the speed)", c.Index, c.WrittenMs, least)
		}
	}
	if !slices.ContainsFunc(res.HTTP, func(l string) bool { return strings.Contains(l, "in real time whatever --speed") }) {
		t.Errorf("no transcript line says the comparison runs in real time")
	}
	if len(rvs) != 3 {
		t.Errorf("changes %+v: want 3 distinct resourceVersions", ev.Changes)
	}
	for _, c := range ev.Clients {
		if c.HTTPBytesIn == 0 || c.HTTPBytesOut == 0 || c.TLSBytesIn <= c.HTTPBytesIn || c.TLSBytesOut <= c.HTTPBytesOut {
			t.Errorf("%s: HTTP bytes %d in, %d out; TLS %d, %d: want some, and more with TLS", c.Client, c.HTTPBytesIn, c.HTTPBytesOut, c.TLSBytesIn, c.TLSBytesOut)
		}
		if len(c.Seen) != 3 {
			t.Errorf("%s: %d changes scored, want 3", c.Client, len(c.Seen))
		}
	}
	if lp := ev.Clients[1]; lp.Client != ClientLongPoll || len(lp.RoundWaitsMs) != 3 {
		t.Errorf("long-poll %+v: want 3 rounds timed", lp)
	}
	checkLabWidth(t, res)
}
