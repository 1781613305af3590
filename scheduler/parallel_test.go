package scheduler

import (
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/client-go/kubernetes/fake"
)

// until covers every index once, on any number of workers, and when told
// to stop it has covered exactly the first indexes it reports.
func TestParallelizerUntil(t *testing.T) {
	for _, workers := range []int{1, 2, 5} {
		for _, n := range []int{0, 1, 7, 100, 1000} {
			p := parallelizer{workers: workers}
			seen := make([]atomic.Int32, n)
			done := p.until(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
			}, nil)
			if done != n {
				t.Errorf("workers=%d n=%d: done %d, want all", workers, n, done)
			}
			for i := range seen {
				if c := seen[i].Load(); c != 1 {
					t.Fatalf("workers=%d n=%d: index %d covered %d times", workers, n, i, c)
				}
			}

			// Stop once 30 indexes are covered.
			seen = make([]atomic.Int32, n)
			var covered atomic.Int64
			done = p.until(n, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
				covered.Add(int64(hi - lo))
			}, func() bool { return covered.Load() >= 30 })
			if want := min(n, 30); done < want {
				t.Errorf("workers=%d n=%d: stopped after %d, want at least %d", workers, n, done, want)
			}
			if workers == 1 && done != min(n, 30) {
				t.Errorf("one worker, n=%d: stopped after %d, want exactly %d", n, done, min(n, 30))
			}
			for i := range seen {
				if c, want := seen[i].Load(), i < done; (c == 1) != want || c > 1 {
					t.Fatalf("workers=%d n=%d done=%d: index %d covered %d times", workers, n, done, i, c)
				}
			}
		}
	}
}

// The number of workers defaults to kube-scheduler's 16 and never exceeds
// GOMAXPROCS; a negative Parallelism is refused.
func TestParallelism(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, tt := range []struct{ asked, want int }{
		{0, min(DefaultParallelism, procs)}, {1, 1}, {1000, procs},
	} {
		if got := newParallelizer(tt.asked).workers; got != tt.want {
			t.Errorf("newParallelizer(%d) has %d workers, want %d (GOMAXPROCS %d)", tt.asked, got, tt.want, procs)
		}
	}
	cfg := NewConfig(fake.NewClientset())
	cfg.Parallelism = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "parallelism must not be negative") {
		t.Errorf("Validate with Parallelism -1 = %v", err)
	}
}
