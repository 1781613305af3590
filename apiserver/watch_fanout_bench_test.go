package apiserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWatchFanOut measures, in one run, what many watchers of pods
// cost the API server: the same pod creates (fanOutRate a second, through
// the full handler chain, in-process) watched first by one watcher, then
// by fanOutWatchers, every watch served by the full handler chain into an
// in-memory response writer (no network: only the server's work is
// measured, not a client's decoding). The delay of an event is from the
// start of its create's POST to its frame being written to a watcher. It
// reports the 99th percentile of both (p99-1-ms, p99-1000-ms), their ratio
// (1 would mean a thousand watchers cost the first nothing), the heap and
// the goroutine stacks each idle watcher holds (after a GC, before the
// creates), and how many of the expected frames were not written (a
// watcher the watch cache dropped as too slow misses the rest). A third
// round has fanOutWatchers kubelets' watches instead (fieldSelector
// spec.nodeName=<its node>), each pod created on one of their nodes:
// p99-kubelets-ms is the delay of a pod's frame to its kubelet.
// cpu-us/frame-1000 is the process's CPU time in the round of a thousand
// watchers, from the first create to the last frame, per frame written
// (the creates, the waiting and this benchmark's reading of the frames
// included): the cost of an event to one watcher, which the delay of the
// last of a thousand grows with, but without the disk's noise. Run it
// with -benchtime=1x.
func BenchmarkWatchFanOut(b *testing.B) {
	ts := startServer(b)
	h := ts.srv.Handler()
	var one, many, kubelets fanOutResult
	every := func(int) string { return "" }
	unbound := func(int) string { return "" }
	for i := 0; i < b.N; i++ {
		one.add(runFanOut(b, h, fmt.Sprintf("one%d", i), 1, every, unbound))
		many.add(runFanOut(b, h, fmt.Sprintf("many%d", i), fanOutWatchers, every, unbound))
		kubelets.add(runFanOut(b, h, fmt.Sprintf("kubelets%d", i), fanOutWatchers, func(w int) string {
			return "&fieldSelector=spec.nodeName%3D" + fanOutNode(w)
		}, func(pod int) string { return fanOutNode(pod * 7 % fanOutWatchers) }))
	}
	p1, pn := percentile(one.delays, 0.99), percentile(many.delays, 0.99)
	b.ReportMetric(ms(p1), "p99-1-ms")
	b.ReportMetric(ms(pn), "p99-1000-ms")
	b.ReportMetric(float64(pn)/float64(max(p1, 1)), "p99-ratio")
	b.ReportMetric(ms(percentile(kubelets.delays, 0.99)), "p99-kubelets-ms")
	b.ReportMetric(many.heapPerWatcher/float64(b.N), "heap-B/watcher")
	b.ReportMetric(many.stackPerWatcher/float64(b.N), "stack-B/watcher")
	b.ReportMetric(float64(one.missing+many.missing+kubelets.missing), "missing-frames")
	b.ReportMetric(float64(many.cpu.Microseconds())/float64(max(many.frames, 1)), "cpu-us/frame-1000")
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fanOutNode(i int) string { return fmt.Sprintf("node-%d", i) }

const (
	fanOutWatchers = 1000
	fanOutPods     = 60
	fanOutRate     = 20 // creates a second
)

type fanOutResult struct {
	delays                          []time.Duration
	heapPerWatcher, stackPerWatcher float64
	missing                         int
	// cpu is the process's CPU time from the first create to the last
	// frame (or the deadline), frames the frames delivered meanwhile.
	cpu    time.Duration
	frames int64
}

func (r *fanOutResult) add(o fanOutResult) {
	r.delays = append(r.delays, o.delays...)
	r.heapPerWatcher += o.heapPerWatcher
	r.stackPerWatcher += o.stackPerWatcher
	r.missing += o.missing
	r.cpu += o.cpu
	r.frames += o.frames
}

// runFanOut starts watchers watches of pods (query(w) added to watch w's
// URL), creates fanOutPods pods named <prefix>-<i> on node(i) ("": not
// bound), waits for their ADDED frames (at most a minute) and ends the
// watches. A bound pod is expected by one watcher, the others by all.
func runFanOut(b *testing.B, h http.Handler, prefix string, watchers int, query, node func(int) string) fanOutResult {
	b.Helper()
	rv := podListRevision(b, h)
	starts := make([]atomic.Int64, fanOutPods)
	var mu sync.Mutex
	var res fanOutResult
	var delivered atomic.Int64
	marker := []byte(`"name":"` + prefix + `-`)
	onFrame := func(p []byte) {
		if !bytes.HasPrefix(p, []byte(`{"type":"ADDED"`)) {
			return
		}
		i := bytes.Index(p, marker)
		if i < 0 {
			return
		}
		rest := p[i+len(marker):]
		n, err := strconv.Atoi(string(rest[:bytes.IndexByte(rest, '"')]))
		if err != nil || n >= fanOutPods {
			return
		}
		d := time.Duration(nowNanos() - starts[n].Load())
		mu.Lock()
		res.delays = append(res.delays, d)
		mu.Unlock()
		delivered.Add(1)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	sinks := make([]*frameSink, watchers)
	for w := range watchers {
		sinks[w] = newFrameSink(onFrame)
		req := httptest.NewRequestWithContext(ctx, "GET", "/api/v1/pods?watch=1&resourceVersion="+rv+query(w), nil)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		wg.Add(1)
		go func() {
			defer wg.Done()
			h.ServeHTTP(sinks[w], req)
			sinks[w].ended.Store(true)
		}()
	}
	for _, s := range sinks {
		<-s.started
	}
	var idle runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&idle)
	res.heapPerWatcher = float64(int64(idle.HeapAlloc)-int64(before.HeapAlloc)) / float64(watchers)
	res.stackPerWatcher = float64(int64(idle.StackInuse)-int64(before.StackInuse)) / float64(watchers)

	tick := time.NewTicker(time.Second / fanOutRate)
	want := int64(0)
	cpu0 := processCPU(b)
	for i := range fanOutPods {
		<-tick.C
		starts[i].Store(nowNanos())
		createFanOutPod(b, h, fmt.Sprintf("%s-%d", prefix, i), node(i))
		if node(i) != "" {
			want++
		} else {
			want += int64(watchers)
		}
	}
	tick.Stop()
	deadline := time.Now().Add(time.Minute)
	for delivered.Load() < want && time.Now().Before(deadline) && !allEnded(sinks) {
		time.Sleep(10 * time.Millisecond)
	}
	res.cpu, res.frames = processCPU(b)-cpu0, delivered.Load()
	cancel()
	wg.Wait()
	res.missing = int(want - delivered.Load())
	return res
}

// allEnded reports whether every watch's handler has returned.
func allEnded(sinks []*frameSink) bool {
	for _, s := range sinks {
		if !s.ended.Load() {
			return false
		}
	}
	return true
}

func podListRevision(b *testing.B, h http.Handler) string {
	b.Helper()
	req := httptest.NewRequest("GET", "/api/v1/pods?limit=1", nil)
	req.Header.Set("Authorization", "Bearer "+adminToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &list); err != nil || w.Code != http.StatusOK {
		b.Fatalf("list pods: %d %s", w.Code, w.Body)
	}
	return list.Metadata.ResourceVersion
}

func createFanOutPod(b *testing.B, h http.Handler, name, node string) {
	body := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `","labels":{"app":"fanout"}},` +
		`"spec":{"nodeName":"` + node + `","containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}]}]}}`
	req := httptest.NewRequest("POST", "/api/v1/namespaces/default/pods", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+adminToken)
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusCreated {
		b.Fatalf("create %s: %d %s", name, w.Code, w.Body)
	}
}

// frameSink is a watch's response writer: it hands each written frame to
// onFrame (serveWatch writes one frame per Write) and notes the first
// flush (the watch has started) and the handler's end.
type frameSink struct {
	header  http.Header
	onFrame func([]byte)
	started chan struct{}
	once    sync.Once
	ended   atomic.Bool
}

func newFrameSink(onFrame func([]byte)) *frameSink {
	return &frameSink{header: http.Header{}, onFrame: onFrame, started: make(chan struct{})}
}

func (f *frameSink) Header() http.Header { return f.header }
func (f *frameSink) WriteHeader(code int) {
	if code != http.StatusOK {
		f.ended.Store(true)
		f.once.Do(func() { close(f.started) })
	}
}
func (f *frameSink) Write(p []byte) (int, error) { f.onFrame(p); return len(p), nil }
func (f *frameSink) Flush()                      { f.once.Do(func() { close(f.started) }) }

func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(int(p*float64(len(s))), len(s)-1)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
