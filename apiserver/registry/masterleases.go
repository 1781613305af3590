package registry

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// MasterLeasesPrefix is where kube-apiserver's lease endpoint reconciler
// keeps one key per API server IP address, /registry/masterleases/<ip>
// (pkg/controlplane/reconcilers/lease.go, base key "/masterleases/"
// under the storage prefix).
const MasterLeasesPrefix = KeyRoot + "masterleases/"

// MasterLeases is the set of live API servers as upstream's storageLeases
// keeps it: each server's IP under MasterLeasesPrefix, attached to an etcd
// lease of TTL seconds, so that the key of a server that stops renewing
// it (killed, or cut off from etcd) disappears on its own. The value is a
// v1 Endpoints holding the one address, in the storage media type, as
// upstream stores it. Safe for concurrent use.
//
// Upstream writes through its storage layer, whose lease manager grants
// each write a fresh etcd lease of exactly the TTL (the reuse window,
// 5% of 15 s, rounds to zero); kubesim grants one per write directly, for
// the same effect (its storage layer stretches leases by 60 s for
// events).
type MasterLeases struct {
	client *clientv3.Client
	codec  runtime.Codec
	ttl    time.Duration
}

// NewMasterLeases returns the leases kept on client with ttl (whole
// seconds, at least 1), their values written in mediaType (StorageCodec).
func NewMasterLeases(client *clientv3.Client, mediaType string, ttl time.Duration) (*MasterLeases, error) {
	if ttl < time.Second {
		return nil, fmt.Errorf("master leases: ttl %s is below etcd's one second", ttl)
	}
	codec, err := StorageCodec(mediaType)
	if err != nil {
		return nil, err
	}
	return &MasterLeases{client: client, codec: codec, ttl: ttl}, nil
}

// TTL is the lifetime of a key not renewed.
func (l *MasterLeases) TTL() time.Duration { return l.ttl }

// Key is the etcd key of ip's lease.
func (l *MasterLeases) Key(ip string) string { return MasterLeasesPrefix + ip }

// UpdateLease writes ip's key (creating it if missing) with a new etcd
// lease of the TTL: upstream's UpdateLease, which refreshes the TTL by
// rewriting the value (with its generation bumped, since an unchanged
// value is not written).
func (l *MasterLeases) UpdateLease(ctx context.Context, ip string) error {
	if net.ParseIP(ip) == nil {
		return fmt.Errorf("master leases: %q is not an IP address", ip)
	}
	key := l.Key(ip)
	generation := int64(1)
	if cur, err := l.client.Get(ctx, key); err != nil {
		return fmt.Errorf("master leases: read %s: %w", key, err)
	} else if len(cur.Kvs) > 0 {
		if ep, err := l.decode(cur.Kvs[0].Value); err == nil {
			generation = ep.Generation + 1
		}
	}
	ep := &corev1.Endpoints{Subsets: []corev1.EndpointSubset{{Addresses: []corev1.EndpointAddress{{IP: ip}}}}}
	ep.Generation = generation
	var buf bytes.Buffer
	if err := l.codec.Encode(ep, &buf); err != nil {
		return fmt.Errorf("master leases: encode: %w", err)
	}
	lease, err := l.client.Grant(ctx, int64(l.ttl/time.Second))
	if err != nil {
		return fmt.Errorf("master leases: grant a %s lease: %w", l.ttl, err)
	}
	if _, err := l.client.Put(ctx, key, buf.String(), clientv3.WithLease(lease.ID)); err != nil {
		return fmt.Errorf("master leases: write %s: %w", key, err)
	}
	return nil
}

// ListLeases returns the IPs whose keys exist now, in key order (which
// sorts them as strings), read from etcd with a quorum read.
func (l *MasterLeases) ListLeases(ctx context.Context) ([]string, error) {
	resp, err := l.client.Get(ctx, MasterLeasesPrefix, clientv3.WithPrefix())
	if err != nil {
		return nil, fmt.Errorf("master leases: list: %w", err)
	}
	ips := make([]string, 0, len(resp.Kvs))
	for _, kv := range resp.Kvs {
		ep, err := l.decode(kv.Value)
		if err != nil {
			return nil, fmt.Errorf("master leases: %s: %w", kv.Key, err)
		}
		// As upstream's, a value without an address lists nothing.
		if len(ep.Subsets) > 0 && len(ep.Subsets[0].Addresses) > 0 && ep.Subsets[0].Addresses[0].IP != "" {
			ips = append(ips, ep.Subsets[0].Addresses[0].IP)
		}
	}
	return ips, nil
}

// RemoveLease deletes ip's key (missing is not an error).
func (l *MasterLeases) RemoveLease(ctx context.Context, ip string) error {
	if _, err := l.client.Delete(ctx, l.Key(ip)); err != nil {
		return fmt.Errorf("master leases: delete %s: %w", l.Key(ip), err)
	}
	return nil
}

func (l *MasterLeases) decode(data []byte) (*corev1.Endpoints, error) {
	obj, _, err := l.codec.Decode(data, nil, &corev1.Endpoints{})
	if err != nil {
		return nil, err
	}
	ep, ok := obj.(*corev1.Endpoints)
	if !ok {
		return nil, fmt.Errorf("stored %T, not Endpoints", obj)
	}
	return ep, nil
}
