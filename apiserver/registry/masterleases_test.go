package registry_test

import (
	"context"
	"slices"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// TestMasterLeasesKeys: each renewal writes /registry/masterleases/<ip>
// as a v1 Endpoints holding the address, its generation bumped, on an
// etcd lease granted exactly the TTL (upstream's 15 s); a removed key is
// listed no more.
func TestMasterLeasesKeys(t *testing.T) {
	client := etcdtest.Start(t).Client()
	leases, err := registry.NewMasterLeases(client, registry.StorageMediaTypeJSON, 15*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	codec, err := registry.StorageCodec(registry.StorageMediaTypeJSON)
	if err != nil {
		t.Fatal(err)
	}
	for gen := int64(1); gen <= 2; gen++ {
		if err := leases.UpdateLease(ctx, "127.0.0.2"); err != nil {
			t.Fatal(err)
		}
		resp, err := client.Get(ctx, "/registry/masterleases/127.0.0.2")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("key: %v (%v)", resp, err)
		}
		obj, _, err := codec.Decode(resp.Kvs[0].Value, nil, &corev1.Endpoints{})
		if err != nil {
			t.Fatal(err)
		}
		ep := obj.(*corev1.Endpoints)
		if len(ep.Subsets) != 1 || len(ep.Subsets[0].Addresses) != 1 || ep.Subsets[0].Addresses[0].IP != "127.0.0.2" || ep.Generation != gen {
			t.Errorf("value %+v, want one address 127.0.0.2 at generation %d", ep, gen)
		}
		ttl, err := client.TimeToLive(ctx, clientv3.LeaseID(resp.Kvs[0].Lease))
		if err != nil || ttl.GrantedTTL != 15 {
			t.Errorf("lease of the key: granted %d s (%v), want 15", ttl.GrantedTTL, err)
		}
	}
	if err := leases.UpdateLease(ctx, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if ips, err := leases.ListLeases(ctx); err != nil || !slices.Equal(ips, []string{"127.0.0.1", "127.0.0.2"}) {
		t.Errorf("listed %v (%v)", ips, err)
	}
	if err := leases.RemoveLease(ctx, "127.0.0.2"); err != nil {
		t.Fatal(err)
	}
	if ips, err := leases.ListLeases(ctx); err != nil || !slices.Equal(ips, []string{"127.0.0.1"}) {
		t.Errorf("listed %v (%v) after removing 127.0.0.2", ips, err)
	}
}
