package scheduler

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// DefaultParallelism is kube-scheduler's default number of workers for
// filtering and scoring (KubeSchedulerConfiguration.parallelism). kubesim
// uses no more workers than there are CPUs to run them (GOMAXPROCS):
// more would only take turns.
const DefaultParallelism = 16

// parallelizer splits the nodes of one attempt among workers, as
// kube-scheduler's parallelize.Parallelizer does: the caller works too,
// and each worker takes the next chunk of indexes until none is left.
type parallelizer struct {
	workers int
}

// newParallelizer returns a parallelizer of at most n workers (n <= 0:
// DefaultParallelism), and never more than GOMAXPROCS.
func newParallelizer(n int) parallelizer {
	if n <= 0 {
		n = DefaultParallelism
	}
	return parallelizer{workers: max(1, min(n, runtime.GOMAXPROCS(0)))}
}

// minChunksPerWorker keeps small clusters on the caller's goroutine: a
// goroutine is only worth starting for at least this many chunks of work
// per worker.
const minChunksPerWorker = 2

// chunkSize is how many indexes of n a worker takes at once:
// kube-scheduler's chunkSizeFor, the square root of n, but no more than
// an even share of n.
func (p parallelizer) chunkSize(n int) int {
	return max(1, min(int(math.Sqrt(float64(n))), n/p.workers+1))
}

// workersFor is how many workers until would use for n indexes.
func (p parallelizer) workersFor(n int) int {
	if chunk := p.chunkSize(n); (n+chunk-1)/chunk < p.workers*minChunksPerWorker {
		return 1
	}
	return p.workers
}

// until calls work(lo, hi) for consecutive chunks covering [0, n), on up
// to p.workers goroutines, until every chunk is done or stop returns
// true; stop is asked before each chunk is taken (nil: never stop). The
// chunks taken are always the first ones: when until returns, [0, done)
// was covered, and nothing from done on.
func (p parallelizer) until(n int, work func(lo, hi int), stop func() bool) (done int) {
	workers := p.workersFor(n)
	if workers == 1 && stop == nil {
		work(0, n)
		return n
	}
	chunk := p.chunkSize(n)
	if workers == 1 {
		// Alone, stop after any index: nothing is looked at in vain.
		chunk = 1
	}
	chunks := (n + chunk - 1) / chunk
	var next atomic.Int64
	run := func() {
		for stop == nil || !stop() {
			c := int(next.Add(1)) - 1
			if c >= chunks {
				return
			}
			work(c*chunk, min((c+1)*chunk, n))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(run)
	}
	run()
	wg.Wait()
	return min(int(next.Load())*chunk, n)
}
