package flow

import (
	"testing"
	"time"
)

// TestRequestSummaryChain: a request's summary names its path through
// the servers of the delegation chain, in the learner's language.
func TestRequestSummaryChain(t *testing.T) {
	hop := func(server, outcome string) Step {
		return Step{Name: server, Outcome: outcome, Fields: map[string]string{"server": server, "hop": outcome}}
	}
	r := &RequestTrace{Method: "GET", URI: "/apis/nosuch.example.com/v1/things", Code: 404, User: "admin", Duration: time.Millisecond,
		Steps: []Step{{Name: "authorized", Outcome: "allowed"}, hop("aggregator", "delegated"), hop("kube-apiserver", "delegated"),
			hop("apiextensions", "delegated"), hop("not-found", "not found")}}
	sameLines(t, "en", Layout{}.RequestSummary(r, false), []string{
		"GET /apis/nosuch.example.com/v1/things → 404  (as admin, no route, 1ms)",
		"  aggregator delegated → kube-apiserver delegated → apiextensions delegated → not-found not found"})
	sameLines(t, "zh", Layout{Lang: "zh"}.RequestSummary(r, false), []string{
		"GET /apis/nosuch.example.com/v1/things → 404  (身份 admin, 未匹配路由, 1ms)",
		"  聚合层 委托 → kube-apiserver 委托 → apiextensions 委托 → not-found 未找到"})
}
