package storage

import (
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// NewTickedCompactor returns a compactor of client whose ticks are the
// values sent on tick; after each tick, done receives the revision it
// compacted (0: none). Run it as usual.
func NewTickedCompactor(client *clientv3.Client, logf func(string, ...any)) (c *Compactor, tick chan<- time.Time, done <-chan int64) {
	ticks, results := make(chan time.Time), make(chan int64, 1)
	c = NewCompactor(client, time.Minute, logf)
	c.after = func(time.Duration) <-chan time.Time { return ticks }
	c.tickDone = func(rev int64) { results <- rev }
	return c, ticks, results
}
