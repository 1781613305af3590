package scenarios

import (
	"strings"
	"testing"
)

// TestWatchCompareOnCluster plays a comparison against a real cluster at
// speed 0 and checks what holds by construction: the writer's changes
// are distinct states; the watch sees each on one request and
// connection; the long-poller sees each with one GET and one round per
// change, dialing again for each round after the first; the poller makes
// at least two requests; every client moved bytes, more of them on the
// wire with TLS than as HTTP.
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
	for _, c := range ev.Changes {
		rvs[c.ResourceVersion] = true
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
