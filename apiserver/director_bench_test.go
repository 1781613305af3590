package apiserver_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// BenchmarkDelegationChain measures, in one process run, what the
// delegation chain adds to a pod create: the same POST through the full
// handler (filters, aggregator, kube-apiserver) and through the filters
// around kube-apiserver alone, in-process (no network), alternating one
// create each so that noise and the database's growth fall on both
// alike. It reports chain/direct-ratio, the time of a create through the
// chain divided by one without it (1 would mean the chain costs nothing).
func BenchmarkDelegationChain(b *testing.B) {
	ts := startServer(b)
	full, direct := ts.srv.Handler(), ts.srv.HandlerWithoutAggregator()
	var tFull, tDirect float64
	create := func(h http.Handler, i int, which string) float64 {
		body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s-%d"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, which, i)
		req := httptest.NewRequest("POST", "/api/v1/namespaces/default/pods", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		start := nowNanos()
		h.ServeHTTP(w, req)
		d := float64(nowNanos() - start)
		if w.Code != http.StatusCreated {
			b.Fatalf("create through %s: %d %s", which, w.Code, w.Body)
		}
		return d
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			tFull += create(full, i, "chain")
			tDirect += create(direct, i, "direct")
		} else {
			tDirect += create(direct, i, "direct")
			tFull += create(full, i, "chain")
		}
	}
	b.ReportMetric(tFull/tDirect, "chain/direct-ratio")
	b.ReportMetric(tFull/float64(b.N), "ns/op")
}

// nowNanos is the monotonic clock in nanoseconds.
func nowNanos() int64 { return time.Since(benchEpoch).Nanoseconds() }

var benchEpoch = time.Now()
