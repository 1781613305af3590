package storage

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	etcd3metrics "k8s.io/apiserver/pkg/storage/etcd3/metrics"
)

// observe records one request of the Store to etcd in kube-apiserver's
// etcd metrics (k8s.io/apiserver's etcd3 metrics, which its etcd3 store
// records the same way): etcd_request_duration_seconds and
// etcd_requests_total by operation, group and resource, and
// etcd_request_errors_total if it failed. op is upstream's name of the
// operation: get, create, update, delete, list, listWithCount,
// getCurrentResourceVersion.
func (s *Store) observe(op string, start time.Time, err error) {
	etcd3metrics.RecordEtcdRequest(op, s.gr, err, start)
}

// Count returns how many objects the Store holds, read from etcd
// (a count-only range over its prefix, as upstream's Stats reads it for
// apiserver_resource_objects).
func (s *Store) Count(ctx context.Context) (int64, error) {
	start := time.Now()
	resp, err := s.client.Get(ctx, s.prefix, clientv3.WithPrefix(), clientv3.WithCountOnly())
	s.observe("listWithCount", start, err)
	if err != nil {
		return 0, err
	}
	return resp.Count, nil
}

// GroupResource is the resource the Store keeps (Config.GroupResource).
func (s *Store) GroupResource() schema.GroupResource { return s.gr }
