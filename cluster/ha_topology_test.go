package cluster_test

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/embedetcd"
)

// TestHATopology: Config.HA forms the lesson's topology in one process:
// three etcd members, one leading; two API servers on them, on
// 127.0.0.1 and 127.0.0.2 with one port, both in the kubernetes
// Endpoints, the admin's credentials good on both; two scheduler
// instances, one holding the Lease; a pod created through the second API
// server runs. Killing the second API server leaves its master lease
// behind, until it expires and API server 1's reconcile drops the
// address; Close stops the members.
func TestHATopology(t *testing.T) {
	if l, err := net.Listen("tcp", "127.0.0.2:0"); err != nil {
		t.Skipf("127.0.0.2 cannot be bound here: %v", err)
	} else {
		l.Close()
	}
	c := clustertest.Start(t, func(cfg *cluster.Config) {
		cfg.Nodes = cfg.Nodes[:1]
		cfg.HA = &cluster.DefaultHAConfig
	})
	ha := cluster.HAOf(c)
	if ha == nil {
		t.Fatal("HAOf: nil for a cluster started with Config.HA")
	}
	members := haMembers(t, ha)
	if _, ok := embedetcd.LeaderOf(members); !ok || len(members) != 3 {
		t.Errorf("etcd members %+v: want three, one leading", members)
	}
	urls := ha.APIServerURLs()
	if len(urls) != 2 || !strings.HasPrefix(urls[0], "https://127.0.0.1:") || urls[1] != strings.Replace(urls[0], "127.0.0.1", "127.0.0.2", 1) {
		t.Fatalf("API servers %v, want 127.0.0.1 and 127.0.0.2 on one port", urls)
	}
	admin, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the kubernetes Endpoints to list both API servers", endpointsAre(admin, "127.0.0.1", "127.0.0.2"))
	second := clientOf(t, c, urls[1])
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "via-second"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := second.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through API server 2: %v", err)
	}
	eventually(t, "the pod created through API server 2 to run", func() (bool, string) {
		p, err := admin.CoreV1().Pods("default").Get(context.Background(), "via-second", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Status.Phase == corev1.PodRunning, string(p.Status.Phase)
	})
	if got := c.SchedulerInstances(); len(got) != 2 {
		t.Errorf("scheduler instances %v, want two", got)
	}
	eventually(t, "a scheduler instance to hold the Lease", func() (bool, string) {
		holder, err := c.SchedulerLeader(context.Background())
		return err == nil && holder != "", fmt.Sprint(holder, err)
	})

	if err := ha.KillAPIServer(2); err != nil {
		t.Fatal(err)
	}
	if ha.APIServer(2) != nil {
		t.Error("APIServer(2) still returned after KillAPIServer(2)")
	}
	etcd := c.EtcdClient()
	if resp, err := etcd.Get(context.Background(), "/registry/masterleases/127.0.0.2"); err != nil || len(resp.Kvs) != 1 {
		t.Errorf("master lease of the killed server right after the kill: %v, %v; want it still there (no shutdown hook ran)", resp, err)
	}
	eventually(t, "the killed API server out of the kubernetes Endpoints", endpointsAre(admin, "127.0.0.1"))
	endpoints := ha.Etcd.Endpoints()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ep := range endpoints {
		host := strings.TrimPrefix(ep, "https://")
		if conn, err := net.DialTimeout("tcp", host, time.Second); err == nil {
			conn.Close()
			t.Errorf("etcd member at %s still listens after Close", host)
		}
	}
}

func haMembers(t *testing.T, ha *cluster.HA) []embedetcd.MemberStatus {
	t.Helper()
	var members []embedetcd.MemberStatus
	eventually(t, "the etcd members to answer, one leading", func() (bool, string) {
		var err error
		members, err = ha.EtcdStatus(context.Background())
		if err != nil {
			return false, err.Error()
		}
		_, ok := embedetcd.LeaderOf(members)
		return ok, fmt.Sprint(members)
	})
	return members
}

// endpointsAre is a condition: the kubernetes Endpoints list exactly ips.
func endpointsAre(client kubernetes.Interface, ips ...string) func() (bool, string) {
	return func() (bool, string) {
		got, _, err := endpointIPs(client)
		if err != nil {
			return false, err.Error()
		}
		slices.Sort(got)
		return slices.Equal(got, ips), fmt.Sprint(got)
	}
}

// clientOf is the admin's client of c, sent to url.
func clientOf(t *testing.T, c *cluster.Cluster, url string) kubernetes.Interface {
	t.Helper()
	cfg, err := c.RESTConfigAs("admin")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host = url
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
