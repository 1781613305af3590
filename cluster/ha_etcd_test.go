package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/embedetcd"
)

// haCluster is two API servers, each a cluster.Cluster of its own (its
// own data dir, port, certificates and admin client), storing in one
// three-member etcd cluster: the storage side of a highly available
// control plane. Both servers rewrite the default/kubernetes Endpoints
// with their own address; nothing here looks at that object.
type haCluster struct {
	ec      *etcdCluster
	etcd    *clientv3.Client
	servers []*cluster.Cluster
	clients []kubernetes.Interface
}

// startHA starts three etcd members and two API servers on them, one
// after the other, each configured by clustertest.APIOnly, the etcd
// cluster and then every one of configure.
func startHA(t *testing.T, configure ...func(*cluster.Config)) *haCluster {
	t.Helper()
	ha := &haCluster{ec: startEtcdCluster(t, 3)}
	ha.etcd = ha.ec.client()
	for range 2 {
		c := clustertest.Start(t, append([]func(*cluster.Config){clustertest.APIOnly, ha.ec.configure}, configure...)...)
		client, err := c.AdminClient()
		if err != nil {
			t.Fatal(err)
		}
		ha.servers = append(ha.servers, c)
		ha.clients = append(ha.clients, client)
	}
	return ha
}

// statusLeader returns the index of the member that leads, as etcd's
// maintenance Status API tells it (what `etcdctl endpoint status` shows):
// each running member answers with its own ID and its leader's, waiting
// until the members that answer name one of them.
func (ha *haCluster) statusLeader(t *testing.T) int {
	t.Helper()
	leader := -1
	eventually(t, "a leader in the members' status", func() (bool, string) {
		ids := map[uint64]int{}
		var lead uint64
		var states []string
		for i, ep := range ha.ec.endpoints() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			st, err := ha.etcd.Status(ctx, ep)
			cancel()
			if err != nil {
				states = append(states, fmt.Sprintf("%s: %v", ep, err))
				continue
			}
			ids[st.Header.MemberId] = i
			if st.Leader != 0 {
				lead = st.Leader
			}
			states = append(states, fmt.Sprintf("%s: member %x, leader %x", ep, st.Header.MemberId, st.Leader))
		}
		i, ok := ids[lead]
		leader = i
		return lead != 0 && ok, strings.Join(states, "; ")
	})
	return leader
}

// listRV is the resourceVersion of a LIST of ConfigMaps in default
// through server i: a revision every server's watch can start from.
func (ha *haCluster) listRV(t *testing.T, i int) string {
	t.Helper()
	list, err := ha.clients[i].CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list through server %d: %v", i, err)
	}
	return list.ResourceVersion
}

// watchedEvent is one event of a ConfigMap, as a watch delivered it or
// as etcd's history implies it.
type watchedEvent struct {
	typ  watch.EventType
	name string
	rv   int64
}

func (e watchedEvent) String() string { return fmt.Sprintf("%s %s@%d", e.typ, e.name, e.rv) }

// serverWatch watches ConfigMaps in default through one API server until
// its context ends, keeping every event, and watches again from the last
// resourceVersion when the server ends a stream (as a reflector would),
// counting the streams ended and keeping the errors met.
type serverWatch struct {
	mu     sync.Mutex
	events []watchedEvent
	ends   int      // streams ended by the server
	errs   []string // error events, and failed (re)watches
}

func startServerWatch(ctx context.Context, client kubernetes.Interface, rv string) *serverWatch {
	sw := &serverWatch{}
	go func() {
		for ctx.Err() == nil {
			w, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			if err != nil {
				if ctx.Err() == nil {
					sw.addErr("watch: " + err.Error())
					time.Sleep(pollInterval)
				}
				continue
			}
			for ev := range w.ResultChan() {
				rv = sw.record(ev, rv)
			}
			w.Stop()
			if ctx.Err() == nil {
				sw.note(func() { sw.ends++ })
			}
		}
	}()
	return sw
}

// record keeps ev and returns the resourceVersion to watch again from.
func (sw *serverWatch) record(ev watch.Event, rv string) string {
	switch obj := ev.Object.(type) {
	case *corev1.ConfigMap:
		n, _ := strconv.ParseInt(obj.ResourceVersion, 10, 64)
		sw.note(func() { sw.events = append(sw.events, watchedEvent{ev.Type, obj.Name, n}) })
		return obj.ResourceVersion
	case *metav1.Status:
		sw.addErr(fmt.Sprintf("%s event: %d %s %q", ev.Type, obj.Code, obj.Reason, obj.Message))
	default:
		sw.addErr(fmt.Sprintf("%s event of a %T", ev.Type, ev.Object))
	}
	return rv
}

// addErr keeps the first few errors and counts the others.
func (sw *serverWatch) addErr(msg string) {
	sw.note(func() {
		if len(sw.errs) == maxWatchErrs {
			msg = "and more"
		} else if len(sw.errs) > maxWatchErrs {
			return
		}
		sw.errs = append(sw.errs, msg)
	})
}

// maxWatchErrs is how many errors a serverWatch keeps.
const maxWatchErrs = 5

func (sw *serverWatch) note(f func()) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	f()
}

// state returns copies of what the watch has seen so far.
func (sw *serverWatch) state() (events []watchedEvent, ends int, errs []string) {
	sw.mu.Lock()
	defer sw.mu.Unlock()
	return slices.Clone(sw.events), sw.ends, slices.Clone(sw.errs)
}

// etcdEvents is the ground truth a watch from rev must deliver: each
// ConfigMap key in default etcd stored after rev, in revision order, as
// ADDED when that revision created it (nothing here updates or deletes
// a ConfigMap).
func etcdEvents(t *testing.T, c *clientv3.Client, rev int64) []watchedEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	const prefix = "/registry/configmaps/default/"
	resp, err := c.Get(ctx, prefix, clientv3.WithPrefix(), clientv3.WithMinModRev(rev+1), clientv3.WithSort(clientv3.SortByModRevision, clientv3.SortAscend))
	if err != nil {
		t.Fatalf("read etcd: %v", err)
	}
	var out []watchedEvent
	for _, kv := range resp.Kvs {
		typ := watch.Added
		if kv.CreateRevision != kv.ModRevision {
			typ = watch.Modified
		}
		out = append(out, watchedEvent{typ, strings.TrimPrefix(string(kv.Key), prefix), kv.ModRevision})
	}
	return out
}

// checkWatches waits until each watch (watches[i] through server i,
// what says which watch) has delivered as many events as etcd stored
// after startRV, then checks that every watch delivered exactly those,
// in order (so none was missed and none came twice), that
// resourceVersions only went up on each, and so that the servers'
// watches delivered the same sequence.
func checkWatches(t *testing.T, ha *haCluster, what string, watches []*serverWatch, startRV int64) {
	t.Helper()
	want := etcdEvents(t, ha.etcd, startRV)
	for i, sw := range watches {
		var got []watchedEvent
		eventually(t, fmt.Sprintf("server %d's %s to deliver every stored create", i, what), func() (bool, string) {
			got, _, _ = sw.state()
			return len(got) >= len(want), fmt.Sprintf("%d of %d delivered", len(got), len(want))
		})
		for j := 1; j < len(got); j++ {
			if got[j].rv <= got[j-1].rv {
				t.Errorf("server %d's %s went from resourceVersion %d (%s) to %d (%s)", i, what, got[j-1].rv, got[j-1].name, got[j].rv, got[j].name)
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("server %d's %s delivered %d events:\n%v\netcd stored %d:\n%v", i, what, len(got), got, len(want), want)
		}
		_, ends, errs := sw.state()
		t.Logf("server %d's %s: %d events (etcd stored %d), %d streams ended by the server, %d errors %q", i, what, len(got), len(want), ends, len(errs), errs)
	}
}

// checkLists checks that a LIST through each server has exactly the
// ConfigMaps in default etcd has, each with etcd's revision as its
// resourceVersion.
func checkLists(t *testing.T, ha *haCluster) {
	t.Helper()
	want := map[string]string{}
	for _, e := range etcdEvents(t, ha.etcd, 0) {
		want[e.name] = strconv.FormatInt(e.rv, 10)
	}
	for i, client := range ha.clients {
		list, err := client.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
		if err != nil {
			t.Errorf("list through server %d: %v", i, err)
			continue
		}
		got := map[string]string{}
		for _, cm := range list.Items {
			got[cm.Name] = cm.ResourceVersion
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("server %d lists %d ConfigMaps:\n%v\netcd has %d:\n%v", i, len(got), got, len(want), want)
		}
	}
}

// answerCounts counts the writers' answers by Status code and reason,
// failing the test for an error that is not a Status from the server.
func answerCounts(t *testing.T, acks []ack) string {
	t.Helper()
	counts := map[string]int{}
	for _, a := range acks {
		var st apierrors.APIStatus
		switch {
		case a.err == nil:
			counts["acknowledged"]++
		case errors.As(a.err, &st):
			s := st.Status()
			counts[fmt.Sprintf("%d %s", s.Code, s.Reason)]++
			t.Logf("  %s: %d %s %q", a.name, s.Code, s.Reason, s.Message)
		default:
			counts["not a Status"]++
			t.Errorf("%s: %v, want a Status from the API server", a.name, a.err)
		}
	}
	return fmt.Sprint(counts)
}

// watchBoth starts a watch through each server from rv, ended when the
// test ends.
func (ha *haCluster) watchBoth(t *testing.T, rv string) []*serverWatch {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var out []*serverWatch
	for _, client := range ha.clients {
		out = append(out, startServerWatch(ctx, client, rv))
	}
	return out
}

// startWriters starts a writer through each server, its names starting
// with prefix and the server's index.
func (ha *haCluster) startWriters(prefix string) []*writer {
	var ws []*writer
	for i, client := range ha.clients {
		ws = append(ws, startWriter(client, fmt.Sprintf("%s%d", prefix, i)))
	}
	return ws
}

// waitEachAcked waits until each writer has n more creates acknowledged.
func waitEachAcked(t *testing.T, ws []*writer, what string, n int) {
	t.Helper()
	wants := make([]int, len(ws))
	for i, w := range ws {
		wants[i] = w.acked() + n
	}
	eventually(t, what, func() (bool, string) {
		var states []string
		ok := true
		for i, w := range ws {
			got := w.acked()
			ok = ok && got >= wants[i]
			states = append(states, fmt.Sprintf("server %d: %d of %d acknowledged", i, got, wants[i]))
		}
		return ok, strings.Join(states, "; ")
	})
}

func stopWriters(ws []*writer) []ack {
	var acks []ack
	for _, w := range ws {
		acks = append(acks, w.stop()...)
	}
	return acks
}

// TestHAMemberRestartTwoAPIServers: two API servers on three etcd
// members; creates go on through both while the raft leader (as the
// members' Status says) is stopped and started again. Every create
// either server acknowledged is then readable through both with the
// resourceVersion it was acknowledged with; a watch through each server,
// both from the same resourceVersion, delivers exactly the creates etcd
// stored, in order, without a gap; and a LIST through each returns what
// etcd has.
func TestHAMemberRestartTwoAPIServers(t *testing.T) {
	ha := startHA(t)
	rv := ha.listRV(t, 0)
	startRV, _ := strconv.ParseInt(rv, 10, 64)
	watches := ha.watchBoth(t, rv)

	ws := ha.startWriters("cm")
	waitEachAcked(t, ws, "creates before a member stops", 10)
	leader := ha.statusLeader(t)
	ha.ec.stop(leader)
	next := ha.statusLeader(t)
	t.Logf("stopped the leader, member %s; %s leads now", ha.ec.names[leader], ha.ec.names[next])
	waitEachAcked(t, ws, "creates while the leader is stopped", 10)
	ha.ec.restart(leader)
	waitEachAcked(t, ws, "creates after it is back", 10)
	acks := stopWriters(ws)

	stored := etcdConfigMaps(t, ha.etcd, startRV)
	for i, client := range ha.clients {
		t.Logf("reading every acknowledged create back through server %d", i)
		checkAcknowledged(t, client, acks, stored)
	}
	checkWatches(t, ha, "watch", watches, startRV)
	checkLists(t, ha)
	t.Logf("%d creates through two servers, %d stored: %s", len(acks), len(stored), answerCounts(t, acks))
}

// TestHAQuorumLossTwoAPIServers: two API servers on three etcd members,
// two of which stop. A create and a read through each server are then
// answered, within the request timeout, with the 504 Timeout Status of
// the request timeout filter. The member left ends its require-leader
// watches ("etcdserver: no leader"), the watch caches' among them; a
// watch through each server stays open, silent, through the outage, as
// on kube-apiserver, whose watch cache keeps its watchers while it
// retries its etcd watch (for 30 s, the cacher's
// MaxInternalErrorRetryDuration; the outage here is shorter). A watch
// started during the outage from a resourceVersion the watch cache
// holds is served from it. Once one member is back, creates succeed
// through both servers again, every create acknowledged before is still
// there, and the watches deliver what etcd stored, without a gap.
func TestHAQuorumLossTwoAPIServers(t *testing.T) {
	const requestTimeout = 3 * time.Second
	ha := startHA(t, func(cfg *cluster.Config) { cfg.RequestTimeout = requestTimeout })
	rv := ha.listRV(t, 0)
	startRV, _ := strconv.ParseInt(rv, 10, 64)
	watches := ha.watchBoth(t, rv)
	ws := ha.startWriters("before")
	waitEachAcked(t, ws, "creates with every member up", 5)
	acks := stopWriters(ws)

	leader := ha.statusLeader(t)
	noLeader := ha.watchNoLeader(t, leader)
	var stopped []int
	for i := range ha.ec.names {
		if i != leader {
			ha.ec.stop(i)
			stopped = append(stopped, i)
		}
	}
	requestsWithoutQuorum(t, ha, acks[0].name, requestTimeout)
	noLeader()
	late := ha.watchBoth(t, rv)
	for i, sw := range late {
		eventually(t, fmt.Sprintf("a watch through server %d started without quorum to replay the creates before", i), func() (bool, string) {
			events, _, errs := sw.state()
			return len(events) >= len(acks), fmt.Sprintf("%d of %d delivered, errors %q", len(events), len(acks), errs)
		})
	}
	for i, sw := range watches {
		_, ends, errs := sw.state()
		if ends != 0 || len(errs) != 0 {
			t.Errorf("server %d's watch without quorum: %d streams ended, errors %q; want it open, as kube-apiserver's watch cache keeps its watchers", i, ends, errs)
		} else {
			t.Logf("server %d's watch stayed open without quorum", i)
		}
	}

	ha.ec.restart(stopped[0])
	ws = ha.startWriters("after")
	waitEachAcked(t, ws, "creates once a member is back", 5)
	acks = append(acks, stopWriters(ws)...)
	stored := etcdConfigMaps(t, ha.etcd, 0)
	for _, client := range ha.clients {
		checkAcknowledged(t, client, acks, stored)
	}
	checkWatches(t, ha, "watch", watches, startRV)
	checkWatches(t, ha, "watch started without quorum", late, startRV)
	t.Logf("%d creates, %s", len(acks), answerCounts(t, acks))
	for _, s := range stored {
		if strings.HasPrefix(s.name, "no-quorum-") {
			t.Logf("%s, answered 504 Timeout, was stored at revision %d once quorum returned: a Timeout does not say the write was not done", s.name, s.rv)
		}
	}
}

// watchNoLeader opens a require-leader watch on member i alone (as
// kube-apiserver's watches of etcd are) and returns a function that
// waits until the member ends it with "etcdserver: no leader": the
// member then has had no leader for three election timeouts and has
// ended every such watch at once, the API servers' watch caches' too.
func (ha *haCluster) watchNoLeader(t *testing.T, i int) (wait func()) {
	t.Helper()
	c, err := embedetcd.NewTLSClient(ha.ec.endpoints()[i:i+1], embedetcd.LocalClusterFilesOf(ha.ec.files), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*waitTimeout)
	t.Cleanup(cancel)
	wch := c.Watch(clientv3.WithRequireLeader(ctx), "/kubesim-test/no-leader", clientv3.WithCreatedNotify())
	if resp := <-wch; !resp.Created {
		t.Fatalf("require-leader watch on member %d: %v, want it created", i, resp.Err())
	}
	return func() {
		t.Helper()
		for resp := range wch {
			if err := resp.Err(); err != nil {
				if !errors.Is(err, rpctypes.ErrNoLeader) {
					t.Fatalf("require-leader watch on member %d ended with %v, want %v", i, err, rpctypes.ErrNoLeader)
				}
				t.Logf("member %d ended its require-leader watches: %v", i, err)
				return
			}
		}
		t.Fatalf("member %d did not end its require-leader watch within %s", i, 2*waitTimeout)
	}
}

// requestsWithoutQuorum sends a create and a get through each server at
// once and checks that each is answered with the 504 Timeout Status
// (checkTimeoutStatus), the client waiting far longer than the request
// timeout for the answer.
func requestsWithoutQuorum(t *testing.T, ha *haCluster, existing string, requestTimeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	type answer struct {
		what string
		err  error
	}
	answers := make(chan answer, 2*len(ha.clients))
	for i, client := range ha.clients {
		cms := client.CoreV1().ConfigMaps("default")
		go func() {
			_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("no-quorum-%d", i)}}, metav1.CreateOptions{})
			answers <- answer{fmt.Sprintf("create through server %d without quorum", i), err}
		}()
		go func() {
			_, err := cms.Get(ctx, existing, metav1.GetOptions{})
			answers <- answer{fmt.Sprintf("get through server %d without quorum", i), err}
		}()
	}
	for range 2 * len(ha.clients) {
		a := <-answers
		checkTimeoutStatus(t, a.what, a.err)
	}
}
