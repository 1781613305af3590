package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
)

// ack is a create the API server acknowledged, or (err set) one it
// answered with an error: that write may or may not have been stored.
type ack struct {
	name string
	rv   int64
	err  error
}

// writer creates ConfigMaps one after another until stopped, keeping
// every answer.
type writer struct {
	client kubernetes.Interface
	mu     sync.Mutex
	acks   []ack
	stopc  chan struct{}
	done   chan struct{}
}

func startWriter(client kubernetes.Interface, prefix string) *writer {
	w := &writer{client: client, stopc: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for i := 0; ; i++ {
			select {
			case <-w.stopc:
				return
			default:
			}
			name := fmt.Sprintf("%s-%05d", prefix, i)
			// Longer than the API server's request timeout: the server,
			// not the client, ends a create that cannot be stored.
			ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
			cm, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": strconv.Itoa(i)}}, metav1.CreateOptions{})
			cancel()
			a := ack{name: name, err: err}
			if err == nil {
				a.rv, _ = strconv.ParseInt(cm.ResourceVersion, 10, 64)
			}
			w.mu.Lock()
			w.acks = append(w.acks, a)
			w.mu.Unlock()
		}
	}()
	return w
}

// acked counts the acknowledged creates so far.
func (w *writer) acked() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, a := range w.acks {
		if a.err == nil {
			n++
		}
	}
	return n
}

// waitAcked waits until n more creates than now are acknowledged.
func (w *writer) waitAcked(tb testing.TB, what string, n int) {
	tb.Helper()
	want := w.acked() + n
	eventually(tb, what, func() (bool, string) {
		got := w.acked()
		return got >= want, fmt.Sprintf("%d of %d creates acknowledged", got, want)
	})
}

func (w *writer) stop() []ack {
	close(w.stopc)
	<-w.done
	return w.acks
}

// storedCM is what a watch delivered of one ConfigMap.
type storedCM struct {
	name string
	rv   int64
}

// configMapWatch watches ConfigMaps in default through the API until
// its context ends, watching again from the last resourceVersion when
// the server ends a watch, as a client-go reflector would.
type configMapWatch struct {
	mu     sync.Mutex
	events []storedCM
}

func watchConfigMaps(ctx context.Context, client kubernetes.Interface, rv string) *configMapWatch {
	cw := &configMapWatch{}
	go func() {
		for ctx.Err() == nil {
			w, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			if err != nil {
				time.Sleep(pollInterval)
				continue
			}
			for ev := range w.ResultChan() {
				cm, ok := ev.Object.(*corev1.ConfigMap)
				if !ok || ev.Type != watch.Added {
					continue
				}
				rv = cm.ResourceVersion
				n, _ := strconv.ParseInt(rv, 10, 64)
				cw.mu.Lock()
				cw.events = append(cw.events, storedCM{cm.Name, n})
				cw.mu.Unlock()
			}
			w.Stop()
		}
	}()
	return cw
}

func (cw *configMapWatch) snapshot() []storedCM {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	return append([]storedCM(nil), cw.events...)
}

// etcdConfigMaps is the ground truth: every ConfigMap key etcd stored
// after rev, in revision order.
func etcdConfigMaps(tb testing.TB, c *clientv3.Client, rev int64) []storedCM {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	resp, err := c.Get(ctx, "/registry/configmaps/default/", clientv3.WithPrefix(), clientv3.WithMinModRev(rev+1), clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortAscend))
	if err != nil {
		tb.Fatalf("read etcd: %v", err)
	}
	var out []storedCM
	for _, kv := range resp.Kvs {
		out = append(out, storedCM{strings.TrimPrefix(string(kv.Key), "/registry/configmaps/default/"), kv.ModRevision})
	}
	return out
}

// startOnEtcdCluster starts an API server (alone) on a new three-member
// etcd cluster.
func startOnEtcdCluster(t *testing.T, configure ...func(*cluster.Config)) (*etcdCluster, *cluster.Cluster, kubernetes.Interface) {
	t.Helper()
	ec := startEtcdCluster(t, 3)
	c := clustertest.Start(t, append([]func(*cluster.Config){clustertest.APIOnly, ec.configure}, configure...)...)
	client, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	return ec, c, client
}

// TestExternalEtcdMemberRestart stops the etcd leader while creates go
// on, then starts it again: creates keep being acknowledged throughout,
// each acknowledged one is there afterwards with its resourceVersion,
// and a watch through the API server delivers exactly what etcd stored,
// in order, without a gap.
func TestExternalEtcdMemberRestart(t *testing.T) {
	ec, _, client := startOnEtcdCluster(t)
	etcd := ec.client()
	list, err := client.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	startRV, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	watchCtx, stopWatch := context.WithCancel(context.Background())
	defer stopWatch()
	watched := watchConfigMaps(watchCtx, client, list.ResourceVersion)

	w := startWriter(client, "cm")
	w.waitAcked(t, "creates before a member stops", 10)
	leader := ec.leader()
	ec.stop(leader)
	w.waitAcked(t, "creates while the leader is stopped", 20)
	ec.restart(leader)
	w.waitAcked(t, "creates after it is back", 10)
	acks := w.stop()

	stored := etcdConfigMaps(t, etcd, startRV)
	checkAcknowledged(t, client, acks, stored)
	var events []storedCM
	eventually(t, "the watch to deliver every stored create", func() (bool, string) {
		events = watched.snapshot()
		return len(events) >= len(stored), fmt.Sprintf("%d of %d delivered", len(events), len(stored))
	})
	if fmt.Sprint(events) != fmt.Sprint(stored) {
		t.Errorf("watch delivered %d events:\n%v\netcd stored %d:\n%v", len(events), events, len(stored), stored)
	}
	t.Logf("%d creates, %d acknowledged, %d answered with an error; %d stored, %d watched", len(acks), countAcked(acks), len(acks)-countAcked(acks), len(stored), len(events))
	for _, a := range acks {
		var st apierrors.APIStatus
		switch {
		case a.err == nil:
		case !errors.As(a.err, &st):
			t.Errorf("%s: %v, want a Status from the API server", a.name, a.err)
		default:
			t.Logf("  %s: %d %q %q", a.name, st.Status().Code, st.Status().Reason, st.Status().Message)
		}
	}
}

func countAcked(acks []ack) int {
	n := 0
	for _, a := range acks {
		if a.err == nil {
			n++
		}
	}
	return n
}

// checkAcknowledged checks that every acknowledged create is stored
// with the revision it was acknowledged with, and readable through the
// API; a create answered with an error may be stored or not.
func checkAcknowledged(t *testing.T, client kubernetes.Interface, acks []ack, stored []storedCM) {
	t.Helper()
	rev := map[string]int64{}
	for _, s := range stored {
		rev[s.name] = s.rv
	}
	for _, a := range acks {
		if a.err != nil {
			continue
		}
		if rev[a.name] != a.rv {
			t.Errorf("%s acknowledged at resourceVersion %d, etcd has it at %d", a.name, a.rv, rev[a.name])
		}
		got, err := client.CoreV1().ConfigMaps("default").Get(context.Background(), a.name, metav1.GetOptions{})
		if err != nil || got.ResourceVersion != strconv.FormatInt(a.rv, 10) {
			t.Errorf("read %s back: %v (resourceVersion %v), want resourceVersion %d", a.name, err, got.GetResourceVersion(), a.rv)
		}
	}
}

// TestExternalEtcdQuorumLoss stops two of the three members: a create
// and a read are then answered with a Status, as kube-apiserver answers
// a request whose storage call outlives the request timeout (504
// Timeout); once one member is back, creates succeed again, and every
// create acknowledged before is still there.
func TestExternalEtcdQuorumLoss(t *testing.T) {
	const requestTimeout = 3 * time.Second
	ec, _, client := startOnEtcdCluster(t, func(cfg *cluster.Config) { cfg.RequestTimeout = requestTimeout })
	w := startWriter(client, "before")
	w.waitAcked(t, "creates with every member up", 10)
	acks := w.stop()

	leader := ec.leader()
	var stopped []int
	for i := range ec.names {
		if i != leader {
			ec.stop(i)
			stopped = append(stopped, i)
		}
	}
	// The client waits far longer than the request timeout: the answer
	// must be the server's 504, however slow the machine.
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "no-quorum"}}, metav1.CreateOptions{})
	checkTimeoutStatus(t, "create without quorum", err)
	_, err = client.CoreV1().ConfigMaps("default").Get(ctx, acks[0].name, metav1.GetOptions{})
	checkTimeoutStatus(t, "get without quorum", err)

	ec.restart(stopped[0])
	w = startWriter(client, "after")
	w.waitAcked(t, "creates once a member is back", 5)
	acks = append(acks, w.stop()...)
	checkAcknowledged(t, client, acks, etcdConfigMaps(t, ec.client(), 0))
}

// checkTimeoutStatus checks that err is the API server's 504 Timeout
// Status, as the request timeout filter answers, not a client-side
// timeout.
func checkTimeoutStatus(t *testing.T, what string, err error) {
	t.Helper()
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		t.Fatalf("%s: got %v, want a Status from the API server", what, err)
	}
	s := st.Status()
	if s.Code != http.StatusGatewayTimeout || s.Reason != metav1.StatusReasonTimeout || !strings.Contains(s.Message, "request did not complete within requested timeout") {
		t.Errorf("%s: got %d %s %q, want 504 Timeout \"request did not complete within requested timeout ...\"", what, s.Code, s.Reason, s.Message)
	}
	t.Logf("%s: %d %s %q", what, s.Code, s.Reason, s.Message)
}

// TestExternalEtcdUnreachable: with no etcd at the address, Start gives
// up after the dial timeout and says what dialing met.
func TestExternalEtcdUnreachable(t *testing.T) {
	cfg := clustertest.Config(t).APIOnly()
	cfg.EtcdServers = []string{"https://" + freeAddr(t)}
	cfg.EtcdDialTimeout = time.Second
	c, err := cluster.Start(context.Background(), cfg)
	if err == nil {
		c.Close()
		t.Fatal("Start succeeded with no etcd listening")
	}
	for _, want := range []string{cfg.EtcdServers[0], "did not answer a read within 1s", "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestValidateEtcdOptions(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*cluster.Config)
		want   []string
	}{
		{"embedded", func(*cluster.Config) {}, nil},
		{"external", func(c *cluster.Config) {
			c.EtcdServers = []string{"https://127.0.0.1:2379"}
			c.EtcdCAFile, c.EtcdCertFile, c.EtcdKeyFile = "ca", "crt", "key"
		}, nil},
		{"not a URL", func(c *cluster.Config) { c.EtcdServers = []string{"127.0.0.1:2379"} }, []string{"--etcd-servers must list URLs"}},
		{"cert without key", func(c *cluster.Config) {
			c.EtcdServers = []string{"https://127.0.0.1:2379"}
			c.EtcdCertFile = "crt"
		}, []string{"--etcd-certfile and --etcd-keyfile must be given together"}},
		{"files without servers", func(c *cluster.Config) { c.EtcdCAFile, c.EtcdKeyFile = "ca", "key" }, []string{"--etcd-cafile is only used with --etcd-servers", "--etcd-keyfile is only used"}},
		{"negative request timeout", func(c *cluster.Config) { c.RequestTimeout = -time.Second }, []string{"--request-timeout must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := cluster.NewConfig()
			tt.mutate(cfg)
			err := cluster.ValidateServe(*cfg, 3)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("got %v, want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got %v, want it to say %q", err, w)
				}
			}
		})
	}
}
