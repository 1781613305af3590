package scheduler

import (
	"context"
	"fmt"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// weightedScorePlugin is a score plugin with the weight its normalized
// score is multiplied by.
type weightedScorePlugin struct {
	Plugin ScorePlugin
	Weight int64
}

// framework runs the plugins of one profile at each extension point, in
// the order they are listed. It holds no per-attempt state (that is the
// CycleState), so one framework serves every attempt.
type framework struct {
	preFilter []PreFilterPlugin
	filter    []FilterPlugin
	preScore  []PreScorePlugin
	score     []weightedScorePlugin
	// events maps each filter plugin to the cluster changes that can undo
	// its rejection (nil: any change).
	events map[string][]ClusterEvent
}

// defaultFramework is kube-scheduler v1.37's default profile, cut down to
// the plugins kubesim has, in the same order and with the same weights.
// Filters run NodeName, NodeUnschedulable, TaintToleration, NodeAffinity,
// NodeResourcesFit, VolumeBinding (a pod's claims must exist, be bound
// or bindable on the node; claims reads them; its PreBind binds the
// WaitForFirstConsumer ones) and stop at the first that rejects a node;
// scores are
// TaintToleration ×3, NodeAffinity ×2, NodeResourcesFit ×1 and
// NodeResourcesBalancedAllocation ×1. (Upstream also filters and scores
// with NodePorts, the other volume plugins, PodTopologySpread,
// InterPodAffinity and ImageLocality, none of which has anything to say
// about a pod without ports, persistent volumes, spread constraints, pod
// affinity or pulled images.)
func defaultFramework(claims corelisters.PersistentVolumeClaimLister) *framework {
	var (
		nodeName     = &NodeName{}
		unsched      = &NodeUnschedulable{}
		taints       = &TaintToleration{}
		affinity     = &NodeAffinity{}
		fit          = &NodeResourcesFit{}
		balancedAllo = &NodeResourcesBalancedAllocation{}
		volumes      = &VolumeBinding{claims: claims}
	)
	return newFramework(
		[]FilterPlugin{nodeName, unsched, taints, affinity, fit, volumes},
		[]weightedScorePlugin{{taints, 3}, {affinity, 2}, {fit, 1}, {balancedAllo, 1}},
	)
}

// newFramework builds a framework from filter and score plugins; a plugin
// that also implements PreFilterPlugin or PreScorePlugin runs there too.
func newFramework(filters []FilterPlugin, scores []weightedScorePlugin) *framework {
	f := &framework{filter: filters, score: scores, events: map[string][]ClusterEvent{}}
	seen := map[string]bool{}
	add := func(p Plugin) {
		if seen[p.Name()] {
			return
		}
		seen[p.Name()] = true
		if pf, ok := p.(PreFilterPlugin); ok {
			f.preFilter = append(f.preFilter, pf)
		}
	}
	for _, p := range filters {
		add(p)
		if ee, ok := p.(EnqueueExtensions); ok {
			f.events[p.Name()] = ee.EventsToRegister()
		} else {
			f.events[p.Name()] = nil
		}
	}
	for _, s := range scores {
		if ps, ok := s.Plugin.(PreScorePlugin); ok {
			f.preScore = append(f.preScore, ps)
		}
	}
	return f
}

// skipSet marks the filter plugins whose Filter does not run in this
// attempt (by index in framework.filter).
type skipSet []bool

// runPreFilter runs the PreFilter plugins. It returns the filter plugins
// that asked to be skipped, and a non-nil status when one rejected the pod
// or failed.
func (f *framework) runPreFilter(ctx context.Context, state *CycleState, pod *corev1.Pod) (skip skipSet, _ *Status) {
	skip = make(skipSet, len(f.filter))
	for _, p := range f.preFilter {
		s := p.PreFilter(ctx, state, pod)
		switch {
		case s.IsSkip():
			for i, fp := range f.filter {
				if fp.Name() == p.Name() {
					skip[i] = true
				}
			}
		case s.IsRejected():
			return skip, s.WithPlugin(p.Name())
		case !s.IsSuccess():
			return skip, AsStatus(fmt.Errorf("running PreFilter plugin %q: %w", p.Name(), s.AsError())).WithPlugin(p.Name())
		}
	}
	return skip, nil
}

// runFilter runs the Filter plugins on one node and returns the first
// rejection (its plugin set), or nil when the node passes.
func (f *framework) runFilter(ctx context.Context, state *CycleState, skip skipSet, pod *corev1.Pod, nodeInfo *NodeInfo) *Status {
	for i, p := range f.filter {
		if skip[i] {
			continue
		}
		if s := p.Filter(ctx, state, pod, nodeInfo); !s.IsSuccess() {
			if !s.IsRejected() {
				// Filters may only pass or reject; anything else is a bug.
				s = AsStatus(fmt.Errorf("running %q filter plugin: %w", p.Name(), s.AsError()))
			}
			return s.WithPlugin(p.Name())
		}
	}
	return nil
}

// pluginScores are one node's scores.
type pluginScores struct {
	node   string
	scores []int64 // normalized, one per scoring plugin in f.score order (unused for skipped ones)
	total  int64
}

// runScore runs PreScore, Score and NormalizeScore for the feasible nodes
// and returns their scores, plus which score plugins took part (false:
// skipped by PreScore). Score runs on p's workers, each taking a chunk
// of nodes and giving them every plugin's score, as kube-scheduler does;
// NormalizeScore then runs once per plugin. The slices returned are buf's.
func (f *framework) runScore(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo, p parallelizer, buf *scoreBuffers) ([]pluginScores, []bool, *Status) {
	active, st := f.runPreScore(ctx, state, pod, nodes, buf)
	if st != nil {
		return nil, nil, st
	}
	n, m := len(nodes), len(f.score)
	out, flat, raw := growSlice(buf.out, n), growSlice(buf.flat, n*m), growSlice(buf.raw, n*m)
	buf.out, buf.flat, buf.raw = out, flat, raw
	for i, node := range nodes {
		out[i] = pluginScores{node: node.Name(), scores: flat[i*m : (i+1)*m : (i+1)*m]}
	}
	var failed atomic.Pointer[Status]
	scoreChunk := func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j, wp := range f.score {
				if !active[j] {
					continue
				}
				s, st := wp.Plugin.Score(ctx, state, pod, nodes[i])
				if !st.IsSuccess() {
					failed.CompareAndSwap(nil, AsStatus(fmt.Errorf("plugin %q failed with: %w", wp.Plugin.Name(), st.AsError())))
					return
				}
				raw[j*n+i] = NodeScore{Name: out[i].node, Score: s}
			}
		}
	}
	p.until(n, scoreChunk, func() bool { return failed.Load() != nil })
	if st := failed.Load(); st != nil {
		return nil, nil, st
	}
	for j, wp := range f.score {
		if active[j] {
			if st := normalize(ctx, state, pod, wp, j, raw[j*n:(j+1)*n], out); st != nil {
				return nil, nil, st
			}
		}
	}
	return out, active, nil
}

// runPreScore runs the PreScore plugins and returns which score plugins
// take part (false: skipped by PreScore), or the failure.
func (f *framework) runPreScore(ctx context.Context, state *CycleState, pod *corev1.Pod, nodes []*NodeInfo, buf *scoreBuffers) ([]bool, *Status) {
	active := growSlice(buf.active, len(f.score))
	buf.active = active
	for j := range active {
		active[j] = true
	}
	for _, ps := range f.preScore {
		s := ps.PreScore(ctx, state, pod, nodes)
		switch {
		case s.IsSkip():
			for j, wp := range f.score {
				if wp.Plugin.Name() == ps.Name() {
					active[j] = false
				}
			}
		case !s.IsSuccess():
			return nil, AsStatus(fmt.Errorf("running PreScore plugin %q: %w", ps.Name(), s.AsError()))
		}
	}
	return active, nil
}

// normalize runs a score plugin's NormalizeScore over its scores of every
// node (list) and adds them, weighted, to out as the j-th scores.
func normalize(ctx context.Context, state *CycleState, pod *corev1.Pod, wp weightedScorePlugin, j int, list []NodeScore, out []pluginScores) *Status {
	p := wp.Plugin
	if st := p.NormalizeScore(ctx, state, pod, list); !st.IsSuccess() {
		return AsStatus(fmt.Errorf("plugin %q failed with: %w", p.Name(), st.AsError()))
	}
	for i := range list {
		s := list[i].Score
		if s < MinNodeScore || s > MaxNodeScore {
			return AsStatus(fmt.Errorf("plugin %q scored node %q %d after normalizing, outside [%d, %d]", p.Name(), list[i].Name, s, MinNodeScore, MaxNodeScore))
		}
		out[i].scores[j] = s
		out[i].total += s * wp.Weight
	}
	return nil
}
