package main

import (
	"fmt"
	"slices"
)

// report prints one run's figures.
func report(round int, kind string, r result) {
	fmt.Printf("round %d %-7s cpu %6.2fs  maxrss %7.1f MiB  wall %6.2fs  cpu/wall %.2f",
		round, kind, r.usage.CPU.Seconds(), float64(r.usage.MaxRSSK)/1024, r.wall.Seconds(), cpuRate(r))
	if kind != "plain" {
		fmt.Printf("  viewers ended %d, messages %d, evidence %d", r.viewersEnded, r.messages, r.evidence)
		if r.viewerErr != nil {
			fmt.Printf(", a viewer failed: %v", r.viewerErr)
		}
	}
	fmt.Println()
}

// summarize prints the ratios b/a of each round's pair (CPU, peak RSS,
// and CPU per wall second): min, median, max.
func summarize(name string, a, b []result) {
	var cpu, rss, rate []float64
	for i := range a {
		cpu = append(cpu, b[i].usage.CPU.Seconds()/max(a[i].usage.CPU.Seconds(), 1e-3))
		rss = append(rss, float64(b[i].usage.MaxRSSK)/float64(max(a[i].usage.MaxRSSK, 1)))
		rate = append(rate, cpuRate(b[i])/max(cpuRate(a[i]), 1e-3))
	}
	fmt.Printf("%-10s cpu          %s\n", name, spread(cpu))
	fmt.Printf("%-10s maxrss       %s\n", name, spread(rss))
	fmt.Printf("%-10s cpu per wall %s\n", name, spread(rate))
}

// cpuRate is r's CPU seconds per second of wall time.
func cpuRate(r result) float64 {
	return r.usage.CPU.Seconds() / max(r.wall.Seconds(), 1e-3)
}

// spread is "min X, median Y, max Z" of xs.
func spread(xs []float64) string {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return fmt.Sprintf("min %.2f, median %.2f, max %.2f (%d rounds)", s[0], med, s[n-1], n)
}
