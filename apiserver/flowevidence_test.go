package apiserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/internal/flow"
)

// rawWatch is a watch read straight off its HTTP/1.1 connection, chunk by
// chunk.
type rawWatch struct {
	// chunks receives the payload of each chunk, in order; it is closed
	// when the connection ends.
	chunks <-chan []byte
	conn   net.Conn
}

// openRawWatch sends GET path with token's identity over a new TCP
// connection, checks the 200 answer with chunked transfer encoding, and
// reads the chunks in the background until the connection ends (at the
// end of the test at the latest).
func openRawWatch(t *testing.T, ts *testServer, token, path string) *rawWatch {
	t.Helper()
	u, err := url.Parse(ts.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "GET " + path + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + token + "\r\nAccept: application/json\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	status, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("watch %s: %v", path, err)
	}
	if !strings.HasPrefix(status, "HTTP/1.1 200 ") {
		t.Fatalf("watch %s: status line %q, want 200", path, status)
	}
	chunked := false
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("watch %s headers: %v", path, err)
		}
		if line == "\r\n" {
			break
		}
		if strings.EqualFold(strings.TrimSpace(line), "Transfer-Encoding: chunked") {
			chunked = true
		}
	}
	if !chunked {
		t.Fatalf("watch %s: not chunked", path)
	}
	ch := make(chan []byte, 16)
	go func() {
		defer close(ch)
		for {
			size, err := br.ReadString('\n')
			if err != nil {
				return
			}
			n, err := strconv.ParseInt(strings.TrimSuffix(size, "\r\n"), 16, 64)
			if err != nil || n == 0 {
				return
			}
			payload := make([]byte, n+2)
			if _, err := io.ReadFull(br, payload); err != nil || string(payload[n:]) != "\r\n" {
				return
			}
			ch <- payload[:n]
		}
	}()
	return &rawWatch{chunks: ch, conn: conn}
}

// next returns the payload of the next chunk.
func (w *rawWatch) next(t *testing.T) []byte {
	t.Helper()
	select {
	case c, ok := <-w.chunks:
		if !ok {
			t.Fatal("the watch connection ended")
		}
		return c
	case <-time.After(waitTimeout):
		t.Fatalf("no watch frame within %v", waitTimeout)
	}
	return nil
}

// stageEvents reads sub until it has n staged events of the pod uid, and
// returns them in the order recorded.
func stageEvents(t *testing.T, sub *flow.Subscription, uid types.UID, n int) []flow.Event {
	t.Helper()
	var out []flow.Event
	deadline := time.After(waitTimeout)
	for len(out) < n {
		select {
		case ev := <-sub.Events():
			if ev.Stage != 0 && ev.Object.UID == uid {
				out = append(out, ev)
			}
		case <-deadline:
			t.Fatalf("got %d staged events of pod %s, want %d: %s", len(out), uid, n, describeStages(out))
		}
	}
	return out
}

func describeStages(evs []flow.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		fmt.Fprintf(&b, "[%d %s %s] ", ev.Stage, ev.Component, ev.Summary)
	}
	return b.String()
}

// waitHeldAt waits until gate holds pod name at pt, and returns the
// boundary.
func waitHeldAt(t *testing.T, gate *flow.Gate, pt flow.Point, name string) flow.Boundary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	for {
		held, err := gate.WaitHeld(ctx)
		if err != nil {
			t.Fatalf("waiting for %s held at %s: %v (held: %v)", name, pt, err, gate.Held())
		}
		for _, b := range held {
			if b.Point == pt && b.Object.Name == name {
				return b
			}
		}
		// Something else is held: wait for a change.
		for gateHolds(gate, held) && ctx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// gateHolds reports whether gate holds exactly the boundaries held.
func gateHolds(gate *flow.Gate, held []flow.Boundary) bool {
	now := gate.Held()
	if len(now) != len(held) {
		return false
	}
	for i := range now {
		if now[i] != held[i] {
			return false
		}
	}
	return true
}

// A pod create is held at PointBeforePersist after admission: while held
// the pod is not in etcd, the request outlives its timeout, and Advance
// lets it finish.
func TestGateHoldsCreateBeforePersist(t *testing.T) {
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	gate := flow.NewGate(flow.ModeStep, 0, rec)
	// The request timeout: the create is held longer than it, and what
	// is not held (the rest of the create after Advance) must fit in it,
	// however busy the machine.
	const timeout = 2 * time.Second
	ts := startServer(t, func(c *apiserver.Config) {
		c.Recorder, c.Gate = rec, gate
		c.RequestTimeout = timeout
	})
	type result struct {
		pod *corev1.Pod
		err error
	}
	done := make(chan result, 1)
	go func() {
		p, err := ts.client.CoreV1().Pods("default").Create(context.Background(), testPod("held", nil), metav1.CreateOptions{})
		done <- result{p, err}
	}()
	b := waitHeldAt(t, gate, flow.PointBeforePersist, "held")
	heldSince := time.Now()
	if b.Component != "apiserver" || b.Object.Namespace != "default" || b.Object.Kind != "Pod" || b.Object.UID == "" {
		t.Errorf("held boundary %+v, want the pod default/held with its UID, by the apiserver", b)
	}
	// Held for longer than the request timeout: the pod is not stored,
	// and the request is still waiting. (A GET of the pod that outlasts
	// the short request timeout itself, on a busy machine, is 504: it
	// tells nothing, and etcd is asked too.)
	for time.Since(heldSince) < timeout+timeout/4 {
		if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods/held", "", ""); code != http.StatusNotFound && code != http.StatusGatewayTimeout {
			t.Fatalf("GET while held: %d %s, want 404", code, body)
		}
		if resp, err := ts.etcd.Get(context.Background(), "/registry/pods/default/held"); err != nil || resp.Count != 0 {
			t.Fatalf("etcd while held: %v, count %v, want no key", err, resp.Count)
		}
		select {
		case r := <-done:
			t.Fatalf("create returned while held: %v %v", r.pod, r.err)
		default:
		}
		time.Sleep(50 * time.Millisecond)
	}
	if n := gate.Advance(); n != 1 {
		t.Errorf("Advance released %d boundaries, want 1", n)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(waitTimeout):
		t.Fatal("create did not return after Advance")
	}
	if r.err != nil {
		t.Fatalf("create after Advance: %v", r.err)
	}
	if r.pod.UID != b.Object.UID {
		t.Errorf("created UID %s, held UID %s", r.pod.UID, b.Object.UID)
	}
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods/held", "", ""); code != http.StatusOK {
		t.Errorf("GET after Advance: %d %s, want 200", code, body)
	}
	evs := stageEvents(t, sub, r.pod.UID, 2)
	if evs[0].Stage != flow.StageAdmitted || evs[1].Stage != flow.StagePersisted {
		t.Errorf("stages %s, want 1 then 2", describeStages(evs))
	}
	// The whole request's trace says it was held.
	waitFor(t, waitTimeout, "the trace of the held create", func() bool {
		for {
			select {
			case ev := <-sub.Events():
				if ev.Request != nil && ev.Request.Method == "POST" && ev.Object.UID == r.pod.UID {
					if got := stepNames(ev.Request.Steps); !strings.Contains(got, "admission held stored") {
						t.Errorf("trace steps %s, want a held step between admission and stored", got)
					}
					return true
				}
			default:
				return false
			}
		}
	})
}

// The ADDED frame of a pod for the scheduler's watch is held at
// PointBeforeSchedulerWatch while the watch stays open, then delivered;
// other watchers get it meanwhile.
func TestGateHoldsSchedulerWatchFrame(t *testing.T) {
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	gate := flow.NewGate(flow.ModeStep, 0, rec)
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder, c.Gate = rec, gate })
	sched := openRawWatch(t, ts, schedulerToken, "/api/v1/pods?watch=true")
	admin := openRawWatch(t, ts, adminToken, "/api/v1/pods?watch=true")

	done := make(chan error, 1)
	go func() {
		_, err := ts.client.CoreV1().Pods("default").Create(context.Background(), testPod("p", nil), metav1.CreateOptions{})
		done <- err
	}()
	waitHeldAt(t, gate, flow.PointBeforePersist, "p")
	gate.Advance()
	if err := <-done; err != nil {
		t.Fatalf("create: %v", err)
	}
	b := waitHeldAt(t, gate, flow.PointBeforeSchedulerWatch, "p")
	if b.Component != "apiserver" || b.Object.UID == "" {
		t.Errorf("held boundary %+v", b)
	}
	// An ordinary watcher is not held.
	if got := decodeFrame(t, admin.next(t)); got.Type != "ADDED" || got.pod.Name != "p" {
		t.Errorf("admin watch: %s %s, want ADDED p", got.Type, got.pod.Name)
	}
	// While held: the pod is stored, the scheduler's connection is open
	// and has nothing yet, and stage 3 is not recorded.
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods/p", "", ""); code != http.StatusOK {
		t.Errorf("GET while held: %d %s, want 200", code, body)
	}
	select {
	case c, ok := <-sched.chunks:
		t.Fatalf("scheduler watch while held: %q (open %v), want nothing", c, ok)
	default:
	}
	evs := stageEvents(t, sub, b.Object.UID, 2)
	if evs[1].Stage != flow.StagePersisted {
		t.Errorf("stages while held: %s, want 1, 2", describeStages(evs))
	}
	gate.Advance()
	frame := sched.next(t)
	if got := decodeFrame(t, frame); got.Type != "ADDED" || got.pod.Name != "p" {
		t.Errorf("scheduler watch after Advance: %s %s, want ADDED p", got.Type, got.pod.Name)
	}
	ev := stageEvents(t, sub, b.Object.UID, 1)[0]
	if ev.Stage != flow.StageSchedulerNotified || ev.Watch == nil || string(ev.Watch.Frame) != string(frame) {
		t.Errorf("after Advance: %s, want stage 3 with the frame the scheduler read", describeStages([]flow.Event{ev}))
	}
	// Nothing else is held for the pod at that point: a second scheduler
	// watch (a re-list) gets the pod at once.
	again := openRawWatch(t, ts, schedulerToken, "/api/v1/pods?watch=true&resourceVersion=0")
	if got := decodeFrame(t, again.next(t)); got.Type != "ADDED" || got.pod.Name != "p" {
		t.Errorf("second scheduler watch: %s %s, want ADDED p", got.Type, got.pod.Name)
	}
	if held := gate.Held(); len(held) != 0 {
		t.Errorf("held after the second watch: %v, want nothing", held)
	}
}

type decodedFrame struct {
	Type string
	pod  corev1.Pod
}

// decodeFrame decodes a JSON watch frame holding a pod.
func decodeFrame(t *testing.T, frame []byte) decodedFrame {
	t.Helper()
	var we struct {
		Type   string          `json:"type"`
		Object json.RawMessage `json:"object"`
	}
	if err := json.Unmarshal(frame, &we); err != nil {
		t.Fatalf("frame %q: %v", frame, err)
	}
	var out decodedFrame
	out.Type = we.Type
	if err := json.Unmarshal(we.Object, &out.pod); err != nil {
		t.Fatalf("frame object %q: %v", we.Object, err)
	}
	return out
}

// A pod created, bound by the scheduler and reported Running by its
// node's kubelet goes through the API server's stages 1, 2, 3, 5, 6, 7 and
// 8, in that order, each with its evidence.
func TestPodStagesInTheAPIServer(t *testing.T) {
	ctx := context.Background()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	const schedURI = "/api/v1/pods?watch=true"
	const nodeURI = "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&watch=true"
	sched := openRawWatch(t, ts, schedulerToken, schedURI)
	kubelet := openRawWatch(t, ts, nodeAToken, nodeURI)

	created := mustCreatePod(t, ts.client, "default", testPod("web", nil))
	schedFrame := sched.next(t)
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},"target":{"apiVersion":"v1","kind":"Node","name":"node-a"}}`
	if code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods/web/binding", "application/json", binding,
		"Authorization", "Bearer "+schedulerToken); code != http.StatusCreated {
		t.Fatalf("binding as the scheduler: %d %s", code, body)
	}
	bound, err := ts.client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	kubeletFrame := kubelet.next(t)
	// A write elsewhere, between the binding and the status: stage 8
	// names the key that took that revision.
	if _, err := ts.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "between"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch := `{"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`
	code, body := ts.do(t, "PATCH", "/api/v1/namespaces/default/pods/web/status", "application/strategic-merge-patch+json", patch,
		"Authorization", "Bearer "+nodeAToken)
	if code != http.StatusOK {
		t.Fatalf("status patch as node-a: %d %s", code, body)
	}
	var running corev1.Pod
	if err := json.Unmarshal([]byte(body), &running); err != nil {
		t.Fatal(err)
	}

	evs := stageEvents(t, sub, created.UID, 7)
	var got []flow.Stage
	for _, ev := range evs {
		got = append(got, ev.Stage)
	}
	want := []flow.Stage{1, 2, 3, 5, 6, 7, 8}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("stages %v, want %v: %s", got, want, describeStages(evs))
	}
	const key = "/registry/pods/default/web"
	rv := func(p *corev1.Pod) int64 {
		n, err := strconv.ParseInt(p.ResourceVersion, 10, 64)
		if err != nil {
			t.Fatalf("resourceVersion %q: %v", p.ResourceVersion, err)
		}
		return n
	}
	for _, ev := range evs {
		t.Run(ev.Stage.String(), func(t *testing.T) {
			if ev.Component != "apiserver" || ev.Object.Name != "web" || ev.Object.Namespace != "default" || ev.Object.Kind != "Pod" {
				t.Errorf("component %q object %+v", ev.Component, ev.Object)
			}
			switch ev.Stage {
			case flow.StageAdmitted:
				r := ev.Request
				if r == nil || r.Method != "POST" || r.User != "admin" || r.Route != "POST /api/v1/namespaces/{namespace}/pods" {
					t.Fatalf("request evidence %+v", r)
				}
				if s := stepNames(r.Steps); !strings.HasSuffix(s, "admission") || strings.Contains(s, "stored") {
					t.Errorf("steps %s, want the trace up to admission", s)
				}
			case flow.StagePersisted:
				checkEtcd(t, ev.Etcd, "create", key, rv(created), 0, "web")
				checkAuthor(t, ev.Etcd, "admin", "POST", "/api/v1/namespaces/default/pods")
			case flow.StageSchedulerNotified:
				checkWatch(t, ev.Watch, "system:kube-scheduler", schedURI, created.ResourceVersion, schedFrame)
			case flow.StageBindingPersisted:
				checkEtcd(t, ev.Etcd, "update", key, rv(bound), rv(created), `"nodeName":"node-a"`)
				checkAuthor(t, ev.Etcd, "system:kube-scheduler", "POST", "/api/v1/namespaces/default/pods/web/binding")
			case flow.StageKubeletNotified:
				checkWatch(t, ev.Watch, "system:node:node-a", nodeURI, bound.ResourceVersion, kubeletFrame)
			case flow.StageStatusReported:
				r := ev.Request
				if r == nil || r.Method != "PATCH" || r.User != "system:node:node-a" || !strings.HasSuffix(r.URI, "/pods/web/status") {
					t.Fatalf("request evidence %+v", r)
				}
				if s := stepNames(r.Steps); strings.Contains(s, "stored") {
					t.Errorf("steps %s, want the trace before the write", s)
				}
			case flow.StageStatusPersisted:
				checkEtcd(t, ev.Etcd, "update", key, rv(&running), rv(bound), `"phase":"Running"`)
				checkAuthor(t, ev.Etcd, "system:node:node-a", "PATCH", "/api/v1/namespaces/default/pods/web/status")
				between := fmt.Sprintf("%+v", ev.Etcd.Between)
				if !strings.Contains(between, "Op:create Key:/registry/namespaces/between User:admin") {
					t.Errorf("writes between the binding and the status: %s (+%d, %d elsewhere), want the namespace between created by admin", between, ev.Etcd.BetweenMore, ev.Etcd.BetweenElsewhere)
				}
			}
		})
	}
	// The whole requests' traces carry no stage.
	sub2 := rec.Subscribe(100)
	defer sub2.Close()
	if err := ts.client.CoreV1().Pods("default").Delete(ctx, "web", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "the delete's write", func() bool {
		select {
		case ev := <-sub2.Events():
			if ev.Stage != 0 {
				t.Errorf("after stage 8: %s, want no stage", describeStages([]flow.Event{ev}))
			}
			return ev.Etcd != nil && ev.Etcd.Op == "delete"
		default:
			return false
		}
	})
}

func checkEtcd(t *testing.T, e *flow.EtcdWrite, op, key string, rev, prev int64, contains string) {
	t.Helper()
	if e == nil {
		t.Fatal("no etcd evidence")
	}
	if e.Op != op || e.Key != key || e.Revision != rev || e.PrevRevision != prev {
		t.Errorf("etcd %s %s rev %d prev %d, want %s %s rev %d prev %d", e.Op, e.Key, e.Revision, e.PrevRevision, op, key, rev, prev)
	}
	if !strings.Contains(e.Value, contains) {
		t.Errorf("etcd value %s, want it to contain %s", e.Value, contains)
	}
}

// checkAuthor checks who the write was made for.
func checkAuthor(t *testing.T, e *flow.EtcdWrite, user, method, uri string) {
	t.Helper()
	if e == nil || e.By == nil || e.By.User != user || e.By.Method != method || e.By.URI != uri {
		t.Errorf("write made for %+v, want %s's %s %s", e.By, user, method, uri)
	}
}

func checkWatch(t *testing.T, w *flow.WatchDelivery, user, uri, rv string, frame []byte) {
	t.Helper()
	if w == nil {
		t.Fatal("no watch evidence")
	}
	if w.User != user || w.URI != uri || w.Proto != "HTTP/1.1" || w.ContentType != "application/json" || w.Type != "ADDED" || w.ResourceVersion != rv {
		t.Errorf("watch %+v, want user %s uri %s HTTP/1.1 application/json ADDED rv %s", *w, user, uri, rv)
	}
	if string(w.Frame) != string(frame) {
		t.Errorf("frame %q\nwant the chunk read %q", w.Frame, frame)
	}
	if got := decodeFrame(t, w.Frame); got.Type != "ADDED" || got.pod.ResourceVersion != rv {
		t.Errorf("frame decodes to %s rv %s, want ADDED rv %s", got.Type, got.pod.ResourceVersion, rv)
	}
}

// Pods created before the server started (by another server on the same
// etcd) are not tracked: their writes and watch frames have no stage, and
// the gate does not hold them.
func TestUntrackedPodsHaveNoStages(t *testing.T) {
	rec := flow.NewRecorder()
	gate := flow.NewGate(flow.ModeStep, 0, rec)
	first := startServer(t)
	mustCreatePod(t, first.client, "default", testPod("old", nil))
	second := startServerOn(t, first, func(c *apiserver.Config) { c.Recorder, c.Gate = rec, gate })
	sub := rec.Subscribe(1000)
	defer sub.Close()
	sched := openRawWatch(t, second, schedulerToken, "/api/v1/pods?watch=true&resourceVersion=0")
	if got := decodeFrame(t, sched.next(t)); got.Type != "ADDED" || got.pod.Name != "old" {
		t.Errorf("scheduler watch: %s %s, want ADDED old", got.Type, got.pod.Name)
	}
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"old"},"target":{"apiVersion":"v1","kind":"Node","name":"node-a"}}`
	if code, body := second.do(t, "POST", "/api/v1/namespaces/default/pods/old/binding", "application/json", binding); code != http.StatusCreated {
		t.Fatalf("binding: %d %s", code, body)
	}
	if _, err := second.client.CoreV1().Pods("default").Patch(context.Background(), "old", types.MergePatchType,
		[]byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatalf("status patch: %v", err)
	}
	waitFor(t, waitTimeout, "the status write", func() bool {
		select {
		case ev := <-sub.Events():
			if ev.Stage != 0 || ev.Hold != nil {
				t.Errorf("event of an untracked pod: stage %d hold %v: %s", ev.Stage, ev.Hold, ev.Summary)
			}
			return ev.Etcd != nil && strings.Contains(ev.Etcd.Value, `"phase":"Running"`)
		default:
			return false
		}
	})
	if held := gate.Held(); len(held) != 0 {
		t.Errorf("held: %v, want nothing", held)
	}
}

// In step mode the API server holds a pod at its four points in turn,
// and at each one the API shows the pod as the stage before left it.
func TestStepThroughAPIServerPoints(t *testing.T) {
	ctx := context.Background()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	gate := flow.NewGate(flow.ModeStep, 0, rec)
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder, c.Gate = rec, gate })
	sched := openRawWatch(t, ts, schedulerToken, "/api/v1/pods?watch=true")
	kubelet := openRawWatch(t, ts, nodeAToken, "/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-a&watch=true")
	get := func() (*corev1.Pod, error) {
		return ts.client.CoreV1().Pods("default").Get(ctx, "step", metav1.GetOptions{})
	}
	binding := `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"step"},"target":{"apiVersion":"v1","kind":"Node","name":"node-a"}}`
	steps := []struct {
		point flow.Point
		// act starts the action that reaches the point; it returns a
		// channel with the action's error.
		act func() <-chan error
		// check looks at the pod while it is held.
		check func(p *corev1.Pod, err error) string
	}{
		{flow.PointBeforePersist, func() <-chan error {
			return async(func() error {
				_, err := ts.client.CoreV1().Pods("default").Create(ctx, testPod("step", nil), metav1.CreateOptions{})
				return err
			})
		}, func(p *corev1.Pod, err error) string {
			if err == nil {
				return "the pod exists before its etcd write"
			}
			return ""
		}},
		{flow.PointBeforeSchedulerWatch, nil, func(p *corev1.Pod, err error) string {
			if err != nil || p.Spec.NodeName != "" {
				return fmt.Sprintf("want the pod stored, unbound: %v", err)
			}
			return ""
		}},
		{flow.PointBeforeKubeletWatch, func() <-chan error {
			if got := decodeFrame(t, sched.next(t)); got.pod.Name != "step" {
				t.Errorf("scheduler frame for %s", got.pod.Name)
			}
			return async(func() error {
				return send(ts, schedulerToken, "POST", "/api/v1/namespaces/default/pods/step/binding", "application/json", binding, http.StatusCreated)
			})
		}, func(p *corev1.Pod, err error) string {
			if err != nil || p.Spec.NodeName != "node-a" {
				return fmt.Sprintf("want the pod bound to node-a: %v", err)
			}
			return ""
		}},
		{flow.PointBeforeStatusPersist, func() <-chan error {
			if got := decodeFrame(t, kubelet.next(t)); got.pod.Name != "step" {
				t.Errorf("kubelet frame for %s", got.pod.Name)
			}
			return async(func() error {
				return send(ts, nodeAToken, "PATCH", "/api/v1/namespaces/default/pods/step/status", "application/merge-patch+json",
					`{"status":{"phase":"Running"}}`, http.StatusOK)
			})
		}, func(p *corev1.Pod, err error) string {
			if err != nil || p.Status.Phase != corev1.PodPending {
				return fmt.Sprintf("want the pod still Pending: %v", err)
			}
			return ""
		}},
	}
	var pending <-chan error
	for _, s := range steps {
		if s.act != nil {
			if pending != nil {
				if err := <-pending; err != nil {
					t.Fatal(err)
				}
			}
			pending = s.act()
		}
		b := waitHeldAt(t, gate, s.point, "step")
		if msg := s.check(get()); msg != "" {
			t.Errorf("held at %s: %s", s.point, msg)
		}
		if n := gate.Advance(); n != 1 {
			t.Errorf("Advance at %s released %d, want 1", s.point, n)
		}
		// The stage after the point is recorded once released.
		want := flow.Stage(0)
		switch s.point {
		case flow.PointBeforePersist:
			want = flow.StagePersisted
		case flow.PointBeforeSchedulerWatch:
			want = flow.StageSchedulerNotified
		case flow.PointBeforeKubeletWatch:
			want = flow.StageKubeletNotified
		case flow.PointBeforeStatusPersist:
			want = flow.StageStatusPersisted
		}
		waitFor(t, waitTimeout, fmt.Sprintf("stage %d of %s", want, b.Object.UID), func() bool {
			select {
			case ev := <-sub.Events():
				return ev.Stage == want && ev.Object.UID == b.Object.UID
			default:
				return false
			}
		})
	}
	if err := <-pending; err != nil {
		t.Fatal(err)
	}
	if p, err := get(); err != nil || p.Status.Phase != corev1.PodRunning {
		t.Errorf("at the end: %v, want Running", err)
	}
	if held := gate.Held(); len(held) != 0 {
		t.Errorf("still held: %v", held)
	}
}

// async runs f on its own goroutine and returns its result's channel.
func async(f func() error) <-chan error {
	ch := make(chan error, 1)
	go func() { ch <- f() }()
	return ch
}

// send makes a request with token's identity and fails unless the answer
// has status want. Unlike testServer.do, it may run on any goroutine.
func send(ts *testServer, token, method, path, contentType, body string, want int) error {
	req, err := http.NewRequest(method, ts.url+path, strings.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if resp.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s, want %d", method, path, resp.StatusCode, data, want)
	}
	return nil
}
