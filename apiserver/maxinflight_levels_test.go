package apiserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
)

// TestPriorityLevelSeats: with one seat a level (limits of one read and
// one write), a node's held Lease write fills node-high, so that the next
// heartbeat of a node waits in the level's queue and is 429 when the
// wait (a quarter of the request timeout) is over, while the node's other
// requests (level system), the scheduler's (workload-high) and everyone
// else's writes (the mutating limit) are served.
func TestPriorityLevelSeats(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) {
		c.RequestTimeout = 2 * time.Second
		c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight = 1, 1
	})
	const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	held := holdRequestAs(t, ts, nodeAToken, leases)
	defer held.Close()
	const lease = `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"node-b"}}`
	waitFor(t, waitTimeout, "a 429 for node-b's Lease create", func() bool {
		code, _ := ts.do(t, "POST", leases, "application/json", lease, "Authorization", "Bearer "+nodeBToken)
		return code == 429
	})
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-b", "", "", "Authorization", "Bearer "+nodeBToken); code != 200 {
		t.Errorf("node-b's pod list while node-a's Lease write is held: %d %s", code, body)
	}
	if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", podJSON, "Authorization", "Bearer "+studentToken); code == 429 {
		t.Errorf("the student's write while node-a's Lease write is held: 429 %s", body)
	}
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"node-b"}}`
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", binding, "Authorization", "Bearer "+schedulerToken)
	if code == 429 || !strings.Contains(body, `"kind":"Status"`) {
		t.Errorf("the scheduler's binding while node-a's Lease write is held: %d %s", code, body)
	}
}
