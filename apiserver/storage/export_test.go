package storage

import (
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
)

// Hooks for the external tests of this package.

// SetSubscriptionBuffer changes how far a watcher of s's watch cache may
// fall behind before it is dropped.
func SetSubscriptionBuffer(s *Store, n int) { s.cache.subBuffer = n }

// WatchCacheRunning reports whether s's watch cache serves watchers.
func WatchCacheRunning(s *Store) bool {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.running
}

// WaitForWatchCache waits until s's watch cache has recorded revision rev.
func WaitForWatchCache(s *Store, rev int64) bool {
	deadline := time.Now().Add(waitfor.Bound)
	for time.Now().Before(deadline) {
		s.cache.mu.Lock()
		reached := s.cache.running && s.cache.rev >= rev
		s.cache.mu.Unlock()
		if reached {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// SetNoLeaderGrace changes how long s's watch cache keeps its watchers
// while etcd says it has no leader.
func SetNoLeaderGrace(s *Store, d time.Duration) { s.cache.noLeaderGrace = d }

// NoLeaderErrors counts the watches of etcd s's watch cache saw end
// with "no leader".
func NoLeaderErrors(s *Store) int {
	s.cache.mu.Lock()
	defer s.cache.mu.Unlock()
	return s.cache.noLeaderErrs
}
