package apiserver_test

import (
	"fmt"
	"net"
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
// else's writes (the mutating limit) are served. (whileHeld holds again if
// the held write's short timeout passed meanwhile.)
func TestPriorityLevelSeats(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) {
		c.RequestTimeout = 2 * time.Second
		c.MaxRequestsInFlight, c.MaxMutatingRequestsInFlight = 1, 1
	})
	const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
	const lease = `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"node-b"}}`
	held := func() bool {
		code, _ := ts.do(t, "POST", leases, "application/json", lease, "Authorization", "Bearer "+nodeBToken)
		return code == 429
	}
	whileHeld(t, func() net.Conn { return holdRequestAs(t, ts, nodeAToken, leases) }, held, func() string {
		var errs []string
		if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods?fieldSelector=spec.nodeName%3Dnode-b", "", "", "Authorization", "Bearer "+nodeBToken); code != 200 {
			errs = append(errs, fmt.Sprintf("node-b's pod list: %d %s", code, body))
		}
		if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", podJSON, "Authorization", "Bearer "+studentToken); code == 429 {
			errs = append(errs, "the student's write: 429 "+body)
		}
		binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"node-b"}}`
		if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/p/binding", "application/json", binding, "Authorization", "Bearer "+schedulerToken); code == 429 || !strings.Contains(body, `"kind":"Status"`) {
			errs = append(errs, fmt.Sprintf("the scheduler's binding: %d %s", code, body))
		}
		return strings.Join(errs, "; ")
	})
}
