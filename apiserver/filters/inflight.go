package filters

import (
	"net/http"
	"sync"
	"time"

	endpointsmetrics "k8s.io/apiserver/pkg/endpoints/metrics"

	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/request"
)

// Inflight counts the requests executing past the in-flight limits,
// read-only and mutating apart, for kube-apiserver's
// apiserver_current_inflight_requests: "the maximal number of currently
// used inflight request limit ... in last second". Upstream's filter
// publishes, every second, the highest count of the second that ended;
// Inflight keeps the same one-second windows and Publish sets the gauge
// to the highest count of the last whole window when it is read. The
// zero value is ready; it is safe for concurrent use.
type Inflight struct {
	mu sync.Mutex
	// cur are the requests executing now, high the most seen in the
	// window that began at since, last the most of the window before.
	cur, high, last [2]int
	since           time.Time
}

// The two kinds of requests the gauge tells apart.
const (
	kindReadOnly = iota
	kindMutating
)

// inflightWindow is upstream's publishing period.
const inflightWindow = time.Second

// kindOf is a request's kind: read-only for get, list and watch (upstream's
// non-mutating verbs), mutating for the others.
func kindOf(r *http.Request) int {
	a, _ := request.AttributesFrom(r.Context())
	switch a.Verb {
	case auth.VerbGet, auth.VerbList, auth.VerbWatch:
		return kindReadOnly
	}
	if !a.ResourceRequest && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return kindReadOnly
	}
	return kindMutating
}

// add counts a request of kind k starting (d 1) or ending (d -1).
func (f *Inflight) add(k, d int) {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.roll(time.Now())
	f.cur[k] += d
	f.high[k] = max(f.high[k], f.cur[k])
	f.mu.Unlock()
}

// roll closes the window if a second has passed since it began: the
// window's highest becomes last (or, if a whole window passed with no
// change, the count then, which held all along).
func (f *Inflight) roll(now time.Time) {
	elapsed := now.Sub(f.since)
	if elapsed < inflightWindow {
		return
	}
	if elapsed < 2*inflightWindow {
		f.last = f.high
	} else {
		f.last = f.cur
	}
	f.high, f.since = f.cur, now
}

// Publish sets apiserver_current_inflight_requests to the highest counts
// of the last whole second.
func (f *Inflight) Publish() {
	if f == nil {
		return
	}
	f.mu.Lock()
	f.roll(time.Now())
	last := f.last
	f.mu.Unlock()
	endpointsmetrics.UpdateInflightRequestMetrics(endpointsmetrics.ExecutingPhase, last[kindReadOnly], last[kindMutating])
}
