package cluster_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kubesim/kubesim/cluster"
)

// BenchmarkHTTPSRelay measures the most any API server over HTTPS could
// reach in BenchmarkPodCreate's race against raw etcd puts on this
// machine: a handler that does nothing but read the request's body, put
// it in etcd and send it back, served over TLS and HTTP/2 (as
// kube-apiserver serves client-go), to 16 clients with a connection
// each, beside raw puts of the same bytes to the same member in the same
// run, the rounds alternating as there. No authentication, admission,
// decoding, validation, encoding, watch cache or audit log: whatever
// BenchmarkPodCreate's api/etcd-ratio cannot pass, this ratio
// (relay/etcd-ratio) bounds from above. fsync=on and fsync=off as there.
// relay-cpu-us/op and etcd-cpu-us/op are the process's CPU time per
// operation of each side (the clients', the handler's and etcd's).
func BenchmarkHTTPSRelay(b *testing.B) {
	for _, fsync := range []bool{true, false} {
		name := "fsync=on"
		if !fsync {
			name = "fsync=off"
		}
		b.Run(name+"/clients=16", func(b *testing.B) { benchHTTPSRelay(b, fsync, 16) })
	}
}

func benchHTTPSRelay(b *testing.B, fsync bool, clients int) {
	ctx := context.Background()
	etcd := startRelayEtcd(b, fsync)
	ts := httptest.NewUnstartedServer(relayHandler(etcd))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	b.Cleanup(ts.Close)
	hcs := make([]*http.Client, clients)
	for i := range hcs {
		// A transport each: a connection each, as the API clients have.
		tr := ts.Client().Transport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		hcs[i] = &http.Client{Transport: tr, Timeout: time.Minute}
	}
	value := bytes.Repeat([]byte("x"), relayValueBytes)
	var seq atomic.Int64
	relay := func(client int) error {
		name := benchName("relay", seq.Add(1))
		resp, err := hcs[client].Post(ts.URL+"/"+name, "application/json", bytes.NewReader(value))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		got, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		if resp.StatusCode != http.StatusCreated || len(got) != len(value) {
			return fmt.Errorf("relay answered %d with %d bytes", resp.StatusCode, len(got))
		}
		return nil
	}
	raw := func(int) error {
		_, err := etcd.Put(ctx, "/registry/pods/default/"+benchName("raw", seq.Add(1)), string(value))
		return err
	}
	relaySide, rawSide := raceRounds(b, clients, relay, raw)
	relayRate := float64(b.N) / relaySide.wall.Seconds()
	rawRate := float64(b.N) / rawSide.wall.Seconds()
	b.ReportMetric(float64(relaySide.wall.Nanoseconds())/float64(b.N), "ns/op")
	b.ReportMetric(relayRate, "relay-creates/s")
	b.ReportMetric(rawRate, "etcd-puts/s")
	b.ReportMetric(relayRate/rawRate, "relay/etcd-ratio")
	b.ReportMetric(float64(relaySide.cpu.Microseconds())/float64(b.N), "relay-cpu-us/op")
	b.ReportMetric(float64(rawSide.cpu.Microseconds())/float64(b.N), "etcd-cpu-us/op")
}

// sideCost is what one side of raceRounds took: wall time, and the
// process's CPU time (clients, server and etcd) meanwhile.
type sideCost struct{ wall, cpu time.Duration }

// relayValueBytes is about the size of BenchmarkPodCreate's stored pod.
const relayValueBytes = 1531

// startRelayEtcd starts a cluster with the API server alone and returns
// its etcd client: the member and client BenchmarkPodCreate's raw puts
// use (the API server idles meanwhile, as it does not there).
func startRelayEtcd(b *testing.B, fsync bool) *clientv3.Client {
	cfg := cluster.NewConfig().APIOnly()
	cfg.Port = 0
	cfg.DataDir = b.TempDir()
	cfg.UnsafeNoFsync = !fsync
	c, err := cluster.Start(context.Background(), cfg)
	if err != nil {
		b.Fatalf("start cluster: %v", err)
	}
	b.Cleanup(func() {
		if err := c.Close(); err != nil {
			b.Errorf("close cluster: %v", err)
		}
	})
	return c.EtcdClient()
}

// relayHandler puts each request's body in etcd under the pod key its
// path names and answers 201 with the body.
func relayHandler(etcd *clientv3.Client) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := etcd.Put(r.Context(), "/registry/pods/default"+r.URL.Path, string(body)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	})
}

// raceRounds runs b.N operations of each side from the given number of
// goroutines, in alternating rounds after a warm-up of each (every
// client opens its connection), as benchPodCreate does, and returns what
// each side took.
func raceRounds(b *testing.B, clients int, a, z func(client int) error) (aCost, zCost sideCost) {
	for _, op := range []func(int) error{a, z} {
		if _, err := runConcurrent(2*clients, clients, op); err != nil {
			b.Fatalf("warm-up: %v", err)
		}
	}
	b.ResetTimer()
	for i, n := range splitRounds(b.N) {
		first := i%2 == 0
		for _, side := range []bool{first, !first} {
			op, total := z, &zCost
			if side {
				op, total = a, &aCost
			}
			cpu0 := processCPU(b)
			d, err := runConcurrent(n, clients, op)
			if err != nil {
				b.Fatalf("round %d: %v", i, err)
			}
			total.wall += d
			total.cpu += processCPU(b) - cpu0
		}
	}
	b.StopTimer()
	return aCost, zCost
}
