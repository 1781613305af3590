package storage

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
