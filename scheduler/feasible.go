package scheduler

import (
	"context"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
)

// In a large cluster the search for feasible nodes stops once it has found
// enough of them (kube-scheduler's percentageOfNodesToScore, adaptive):
// every node below 100 nodes, then 50% minus 1% per 125 nodes, at least 5%
// and at least 100 nodes. Each search starts where the last one stopped.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// numFeasibleNodesToFind is how many feasible nodes are enough among n.
func numFeasibleNodesToFind(n int) int {
	if n < minFeasibleNodesToFind {
		return n
	}
	pct := max(50-n/125, minFeasibleNodesPercentageToFind)
	return max(n*pct/100, minFeasibleNodesToFind)
}

// feasibleSearch is what one search for feasible nodes found. Its slices
// are the scheduler's buffers: valid until the next attempt.
type feasibleSearch struct {
	// start is the index in the node list where the search began; it
	// looked at nodes[(start+k) % len(nodes)] for k < tried.
	start, tried int
	// verdicts[k] is the filters' verdict on the k-th node looked at: nil
	// when it passed.
	verdicts []*Status
	// feasible are the nodes that passed, in the order looked at.
	feasible []*NodeInfo
	// statuses are the rejections by node name (nil when none).
	statuses map[string]*Status
}

// findFeasible runs the filters over the nodes, starting where the last
// search stopped (kube-scheduler's nextStartNodeIndex), until
// numFeasibleNodesToFind nodes passed or all were tried.
//
// Like kube-scheduler, it filters on several workers at once, each taking
// the next chunk of nodes, and stops taking chunks once enough nodes
// passed. Where kube-scheduler keeps whichever nodes the workers found
// first, kubesim keeps the outcome of a search node by node (the workers
// only look ahead): the same cluster gives the same verdicts, however the
// workers ran.
func (s *Scheduler) findFeasible(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, nodes []*NodeInfo) (feasibleSearch, error) {
	n := len(nodes)
	want := numFeasibleNodesToFind(n)
	start := s.nextStartNode % n
	verdicts := growSlice(s.buf.verdicts, n)
	s.buf.verdicts = verdicts
	looked := s.filterNodes(ctx, state, skip, pod, nodes, start, want, verdicts)
	out := feasibleSearch{start: start, verdicts: verdicts, feasible: s.buf.feasible[:0]}
	for k, i := 0, start; k < looked && len(out.feasible) < want; k, i = k+1, wrap(i+1, n) {
		node, st := nodes[i], verdicts[k]
		switch {
		case st.IsSuccess():
			out.feasible = append(out.feasible, node)
		case st.IsRejected():
			if out.statuses == nil {
				out.statuses = map[string]*Status{}
			}
			out.statuses[node.Name()] = st
		default:
			return feasibleSearch{}, st.AsError()
		}
		out.tried++
	}
	s.buf.feasible = out.feasible
	s.nextStartNode = (start + out.tried) % n
	return out, nil
}

// filterNodes runs the filters over nodes from start on, wrapping around,
// writing the k-th node's verdict to verdicts[k], until want nodes passed
// or one failed with an error; it returns how many nodes it looked at (on
// several workers, it may look further than a search node by node would).
func (s *Scheduler) filterNodes(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, nodes []*NodeInfo, start, want int, verdicts []*Status) int {
	n := len(nodes)
	if s.parallel.workersFor(n) == 1 {
		passed := 0
		k := 0
		for i := start; k < n && passed < want; k, i = k+1, wrap(i+1, n) {
			st := s.fwk.runFilter(ctx, state, skip, pod, nodes[i])
			verdicts[k] = st
			if st.IsSuccess() {
				passed++
			} else if !st.IsRejected() {
				return k + 1
			}
		}
		return k
	}
	var passed atomic.Int64
	var failed atomic.Bool
	filterChunk := func(lo, hi int) {
		ok := 0
		for k, i := lo, wrap(start+lo, n); k < hi; k, i = k+1, wrap(i+1, n) {
			st := s.fwk.runFilter(ctx, state, skip, pod, nodes[i])
			verdicts[k] = st
			switch {
			case st.IsSuccess():
				ok++
			case !st.IsRejected():
				failed.Store(true)
			}
		}
		passed.Add(int64(ok))
	}
	return s.parallel.until(n, filterChunk, func() bool { return failed.Load() || passed.Load() >= int64(want) })
}

// wrap returns i, or 0 when i is n: the next index after i-1 in a walk
// around a list of n.
func wrap(i, n int) int {
	if i >= n {
		return i - n
	}
	return i
}

// growSlice returns b with length n, reallocated only when too short.
func growSlice[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
