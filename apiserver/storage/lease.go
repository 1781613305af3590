package storage

import (
	"context"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaseReuse is how long one etcd lease serves writes with the same TTL.
// Objects written within that window share the lease, whose TTL is
// stretched by the window so that each object lives at least its TTL.
const leaseReuse = 60 * time.Second

// leaseManager hands out etcd leases for objects with a time to live.
type leaseManager struct {
	client *clientv3.Client

	mu      sync.Mutex
	byTTL   map[int64]clientv3.LeaseID
	granted map[int64]time.Time
}

func newLeaseManager(c *clientv3.Client) *leaseManager {
	return &leaseManager{client: c, byTTL: map[int64]clientv3.LeaseID{}, granted: map[int64]time.Time{}}
}

// get returns a lease that keeps a key for at least ttl seconds.
func (m *leaseManager) get(ctx context.Context, ttl int64) (clientv3.LeaseID, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id, ok := m.byTTL[ttl]; ok && time.Since(m.granted[ttl]) < leaseReuse {
		return id, nil
	}
	resp, err := m.client.Grant(ctx, ttl+int64(leaseReuse/time.Second))
	if err != nil {
		return 0, err
	}
	m.byTTL[ttl] = resp.ID
	m.granted[ttl] = time.Now()
	return resp.ID, nil
}
