package scheduler

import (
	"math"
	"time"
)

// The rules of pickOneNodeForPreemption, as the evidence names them.
const (
	pickOnlyCandidate     = "the only node where preemption helps"
	pickFewestViolations  = "fewest PodDisruptionBudget violations"
	pickLowestTopPriority = "lowest highest-priority victim"
	pickSmallestSum       = "smallest sum of victim priorities"
	pickFewestVictims     = "fewest victims"
	pickLatestStart       = "latest start of the highest-priority victims"
	pickFirstByName       = "first by name among the tied"
)

// pickOneNodeForPreemption chooses among candidates (in name order) as
// upstream's pickOneNodeForPreemption: each rule keeps the nodes with the
// best score, and the first rule that leaves one node decides:
//
//  1. fewest PodDisruptionBudget violations;
//  2. lowest priority of the most important victim;
//  3. smallest sum of victim priorities (each shifted by 2^31, so that
//     negative priorities count as small, not as savings);
//  4. fewest victims;
//  5. latest start time among the most important victims (the node
//     whose evicted pods have run the shortest).
//
// Upstream then takes the first node left in a list built from a map
// (an arbitrary one); kubesim takes the first by name. It returns the
// chosen candidate and the rule that decided.
func pickOneNodeForPreemption(candidates []preemptionCandidate, now func() time.Time) (*preemptionCandidate, string) {
	if len(candidates) == 1 {
		return &candidates[0], pickOnlyCandidate
	}
	at := now()
	rules := []struct {
		name  string
		score func(c *preemptionCandidate) int64
	}{
		{pickFewestViolations, func(c *preemptionCandidate) int64 { return -int64(c.pdbViolations) }},
		{pickLowestTopPriority, func(c *preemptionCandidate) int64 { return -int64(podPriority(c.victims[0])) }},
		{pickSmallestSum, func(c *preemptionCandidate) int64 {
			var sum int64
			for _, v := range c.victims {
				sum += int64(podPriority(v)) + int64(math.MaxInt32) + 1
			}
			return -sum
		}},
		{pickFewestVictims, func(c *preemptionCandidate) int64 { return -int64(len(c.victims)) }},
		{pickLatestStart, func(c *preemptionCandidate) int64 { return earliestTopStart(c, at).UnixNano() }},
	}
	left := make([]*preemptionCandidate, len(candidates))
	for i := range candidates {
		left[i] = &candidates[i]
	}
	for _, r := range rules {
		var kept []*preemptionCandidate
		best := int64(math.MinInt64)
		for _, c := range left {
			switch s := r.score(c); {
			case s > best:
				best, kept = s, []*preemptionCandidate{c}
			case s == best:
				kept = append(kept, c)
			}
		}
		if len(kept) == 1 {
			return kept[0], r.name
		}
		left = kept
	}
	return left[0], pickFirstByName
}

// earliestTopStart is the earliest start time among the candidate's
// victims of the highest priority (upstream's GetEarliestPodStartTime).
func earliestTopStart(c *preemptionCandidate, now time.Time) time.Time {
	top := podPriority(c.victims[0])
	earliest := podStartTime(c.victims[0], now)
	for _, v := range c.victims[1:] {
		if podPriority(v) == top && podStartTime(v, now).Before(earliest) {
			earliest = podStartTime(v, now)
		}
	}
	return earliest
}
