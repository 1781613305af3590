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
		b.Run(fsyncName(fsync)+"/clients=16", func(b *testing.B) { benchHTTPSRelay(b, fsync, 16) })
	}
}

func benchHTTPSRelay(b *testing.B, fsync bool, clients int) {
	ctx := context.Background()
	etcd := startAPIOnly(b, fsync, func(*cluster.Config) {}).EtcdClient()
	rl := startRelay(b, etcd, "/registry/pods/default", clients)
	value := bytes.Repeat([]byte("x"), relayValueBytes)
	var seq atomic.Int64
	relay := func(client int) error { return rl.post(client, benchName("relay", seq.Add(1)), value) }
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

// relayValueBytes is about the size of BenchmarkPodCreate's stored pod.
const relayValueBytes = 1531

// relay is a bare HTTPS relay to etcd (relayHandler) served over TLS
// and HTTP/2, with a client and a connection for each of the benchmark's
// clients.
type relay struct {
	url string
	hcs []*http.Client
}

// startRelay serves relayHandler(etcd, prefix) until the benchmark ends.
func startRelay(b *testing.B, etcd *clientv3.Client, prefix string, clients int) *relay {
	ts := httptest.NewUnstartedServer(relayHandler(etcd, prefix))
	ts.EnableHTTP2 = true
	ts.StartTLS()
	b.Cleanup(ts.Close)
	rl := &relay{url: ts.URL, hcs: make([]*http.Client, clients)}
	for i := range rl.hcs {
		// A transport each: a connection each, as the API clients have.
		tr := ts.Client().Transport.(*http.Transport).Clone()
		tr.ForceAttemptHTTP2 = true
		rl.hcs[i] = &http.Client{Transport: tr, Timeout: time.Minute}
	}
	return rl
}

// post relays value under name through client's connection and checks
// that the relay answered 201 with the same bytes.
func (rl *relay) post(client int, name string, value []byte) error {
	resp, err := rl.hcs[client].Post(rl.url+"/"+name, "application/json", bytes.NewReader(value))
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

// relayHandler puts each request's body in etcd under prefix and the
// request's path, and answers 201 with the body.
func relayHandler(etcd *clientv3.Client, prefix string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if _, err := etcd.Put(r.Context(), prefix+r.URL.Path, string(body)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write(body)
	})
}
