package main

import (
	"fmt"
	"slices"
	"time"
)

// report prints one run's figures.
func report(round int, kind string, r result) {
	fmt.Printf("round %d %-7s cpu %6.2fs  maxrss %7.1f MiB  wall %6.2fs",
		round, kind, r.usage.CPU.Seconds(), float64(r.usage.MaxRSSK)/1024, r.wall.Seconds())
	if kind != "plain" {
		fmt.Printf("  viewers ended %d, messages %d, evidence %d", r.viewersEnded, r.messages, r.evidence)
		if r.viewerErr != nil {
			fmt.Printf(", a viewer failed: %v", r.viewerErr)
		}
	}
	fmt.Println()
}

// summarize prints the ratios web/plain of each round's pair: min,
// median, max.
func summarize(plain, web []result) {
	var cpu, rss []float64
	for i := range plain {
		cpu = append(cpu, web[i].usage.CPU.Seconds()/max(plain[i].usage.CPU.Seconds(), float64(time.Millisecond)/float64(time.Second)))
		rss = append(rss, float64(web[i].usage.MaxRSSK)/float64(max(plain[i].usage.MaxRSSK, 1)))
	}
	fmt.Printf("web/plain cpu    %s\n", spread(cpu))
	fmt.Printf("web/plain maxrss %s\n", spread(rss))
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
