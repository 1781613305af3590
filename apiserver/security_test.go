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
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestUnauthorized: bad credentials are 401; no credentials is
// system:anonymous, whom the default RBAC lets read only the health and
// version paths (403 elsewhere, with kube-apiserver's message: the bodies
// are the real kube-apiserver v1.37.2's, asked the same requests).
func TestUnauthorized(t *testing.T) {
	ts := startServer(t)
	const unauthorized = `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`
	forbidden := func(msg, kind string) string {
		details := `{}`
		if kind != "" {
			details = `{"kind":"` + kind + `"}`
		}
		return `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"` + msg + `","reason":"Forbidden","details":` + details + `,"code":403}`
	}
	tests := []struct {
		name, path, authz string
		code              int
		body              string
	}{
		{"no token", "/api/v1/namespaces/default/pods", "", 403,
			forbidden(`pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" in the namespace \"default\"`, "pods")},
		{"bad token", "/api/v1/namespaces/default/pods", "Bearer not-a-token", 401, unauthorized},
		{"anonymous on pods", "/api/v1/pods", "", 403,
			forbidden(`pods is forbidden: User \"system:anonymous\" cannot list resource \"pods\" in API group \"\" at the cluster scope`, "pods")},
		{"bad token on healthz", "/healthz", "Bearer not-a-token", 401, unauthorized},
		{"anonymous on healthz", "/healthz", "", 200, ""},
		{"anonymous on livez", "/livez", "", 200, ""},
		{"anonymous on readyz", "/readyz", "", 200, ""},
		{"anonymous on a readyz check", "/readyz/etcd", "", 403, forbidden(`forbidden: User \"system:anonymous\" cannot get path \"/readyz/etcd\"`, "")},
		{"anonymous on version", "/version", "", 200, ""},
		{"anonymous on discovery", "/api", "", 403, forbidden(`forbidden: User \"system:anonymous\" cannot get path \"/api\"`, "")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := etcdRevision(t, ts.etcd)
			code, body := ts.do(t, "GET", tt.path, "", "", "Authorization", tt.authz)
			if code != tt.code {
				t.Fatalf("code = %d, want %d: %s", code, tt.code, body)
			}
			if tt.body != "" && strings.TrimSpace(body) != tt.body {
				t.Errorf("body = %s, want %s", body, tt.body)
			}
			if after := etcdRevision(t, ts.etcd); after != before {
				t.Errorf("etcd revision moved %d -> %d", before, after)
			}
		})
	}
}

func TestForbiddenMatrix(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	admin := ts.client
	// A pod bound to node-b, and both nodes.
	mustCreatePod(t, admin, "default", testPod("on-b", nil))
	if err := admin.CoreV1().Pods("default").Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "on-b"}, Target: corev1.ObjectReference{Name: "node-b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"node-a", "node-b"} {
		if _, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	as := func(token string) kubernetes.Interface { return kubernetes.NewForConfigOrDie(ts.restConfigAs(token)) }

	tests := []struct {
		name string
		do   func() error
		msg  string
	}{
		{"student creates a pod", func() error {
			_, err := as(studentToken).CoreV1().Pods("default").Create(ctx, testPod("mine", nil), metav1.CreateOptions{})
			return err
		}, `pods is forbidden: User "student" cannot create resource "pods" in API group "" in the namespace "default"`},
		{"node-a patches the status of a pod bound to node-b", func() error {
			_, err := as(nodeAToken).CoreV1().Pods("default").Patch(ctx, "on-b", "application/merge-patch+json", []byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status")
			return err
		}, `pods "on-b" is forbidden: node "node-a" can only update pod status for pods with spec.nodeName set to itself`},
		{"node-a updates node node-b", func() error {
			n, err := admin.CoreV1().Nodes().Get(ctx, "node-b", metav1.GetOptions{})
			if err != nil {
				return err
			}
			n.Labels = map[string]string{"hijacked": "yes"}
			_, err = as(nodeAToken).CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{})
			return err
		}, `nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"`},
		{"the scheduler deletes a node", func() error {
			return as(schedulerToken).CoreV1().Nodes().Delete(ctx, "node-b", metav1.DeleteOptions{})
		}, `nodes "node-b" is forbidden: User "system:kube-scheduler" cannot delete resource "nodes" in API group "" at the cluster scope`},
		{"student deletes the default namespace", func() error {
			return as(studentToken).CoreV1().Namespaces().Delete(ctx, "default", metav1.DeleteOptions{})
		}, `namespaces "default" is forbidden: User "student" cannot delete resource "namespaces" in API group "" in the namespace "default"`}, // upstream names the namespace resource's own namespace
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := etcdRevision(t, ts.etcd)
			err := tt.do()
			if !apierrors.IsForbidden(err) {
				t.Fatalf("err = %v, want 403 Forbidden", err)
			}
			if err.Error() != tt.msg {
				t.Errorf("message = %q\nwant      %q", err.Error(), tt.msg)
			}
			if after := etcdRevision(t, ts.etcd); after != before {
				t.Errorf("a denied request moved the etcd revision %d -> %d", before, after)
			}
		})
	}

	t.Run("what is allowed", func(t *testing.T) {
		if _, err := as(studentToken).CoreV1().Pods("default").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("student lists pods: %v", err)
		}
		if _, err := as(nodeBToken).CoreV1().Pods("default").Patch(ctx, "on-b", "application/merge-patch+json", []byte(`{"status":{"phase":"Running"}}`), metav1.PatchOptions{}, "status"); err != nil {
			t.Errorf("node-b patches its own pod's status: %v", err)
		}
		if _, err := as(schedulerToken).CoreV1().Pods("").List(ctx, metav1.ListOptions{}); err != nil {
			t.Errorf("scheduler lists pods: %v", err)
		}
	})
}

// A RoleBinding created while the server runs takes effect without a
// restart: the authorizer's cache follows the RBAC objects by watch.
func TestRBACChangesTakeEffect(t *testing.T) {
	ctx := context.Background()
	ts := startServer(t)
	student := kubernetes.NewForConfigOrDie(ts.restConfigAs(studentToken))
	if _, err := student.CoreV1().Pods("default").Create(ctx, testPod("before", nil), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("before the binding: err = %v, want Forbidden", err)
	}
	rb := &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "student-edit"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: "student"}},
	}
	if _, err := ts.client.RbacV1().RoleBindings("default").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "the student to be allowed to create pods", func() bool {
		_, err := student.CoreV1().Pods("default").Create(ctx, testPod("after", nil), metav1.CreateOptions{})
		return err == nil
	})
	// Only in that namespace.
	if _, err := ts.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := student.CoreV1().Pods("other").Create(ctx, testPod("elsewhere", nil), metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("in another namespace: err = %v, want Forbidden", err)
	}
	// Removing the binding takes the right away again.
	if err := ts.client.RbacV1().RoleBindings("default").Delete(ctx, "student-edit", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, waitTimeout, "the student to be refused again", func() bool {
		_, err := student.CoreV1().Pods("default").Create(ctx, testPod(fmt.Sprintf("x%d", time.Now().UnixNano()), nil), metav1.CreateOptions{})
		return apierrors.IsForbidden(err)
	})
}

func TestSelfSubjectAccessReviewAndImpersonation(t *testing.T) {
	ts := startServer(t)
	review := func(token, verb, resource string, header ...string) (int, bool) {
		body := fmt.Sprintf(`{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{"resourceAttributes":{"namespace":"default","verb":%q,"resource":%q}}}`, verb, resource)
		code, out := ts.do(t, "POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", "application/json", body,
			append([]string{"Authorization", "Bearer " + token}, header...)...)
		var r struct {
			Status struct {
				Allowed bool `json:"allowed"`
			} `json:"status"`
		}
		_ = json.Unmarshal([]byte(out), &r)
		return code, r.Status.Allowed
	}
	for _, tt := range []struct {
		name, token, verb string
		header            []string
		want              bool
	}{
		{"student may list", studentToken, "list", nil, true},
		{"student may not create", studentToken, "create", nil, false},
		{"admin may create", adminToken, "create", nil, true},
		{"admin as student may not create", adminToken, "create", []string{"Impersonate-User", "student"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, allowed := review(tt.token, tt.verb, "pods", tt.header...)
			if code != 201 || allowed != tt.want {
				t.Errorf("code %d allowed %v, want 201 and %v", code, allowed, tt.want)
			}
		})
	}
	t.Run("student may not impersonate", func(t *testing.T) {
		code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods", "", "", "Authorization", "Bearer "+studentToken, "Impersonate-User", "admin")
		if code != 403 || !strings.Contains(body, `users \"admin\" is forbidden: User \"student\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope`) {
			t.Errorf("%d %s", code, body)
		}
	})
}

// Every default kube-apiserver applies to a pod is on the stored object.
func TestPodDefaultsStored(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"d"},"spec":{"containers":[{"name":"c","image":"nginx","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":"500m"}}},{"name":"pinned","image":"nginx:1.27"}]}}`)
	if code != 201 {
		t.Fatalf("create: %d %s", code, body)
	}
	p, err := ts.client.CoreV1().Pods("default").Get(context.Background(), "d", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c0, c1 := p.Spec.Containers[0], p.Spec.Containers[1]
	checks := []struct {
		what      string
		got, want any
	}{
		{"restartPolicy", p.Spec.RestartPolicy, corev1.RestartPolicyAlways},
		{"terminationGracePeriodSeconds", *p.Spec.TerminationGracePeriodSeconds, int64(30)},
		{"dnsPolicy", p.Spec.DNSPolicy, corev1.DNSClusterFirst},
		{"schedulerName", p.Spec.SchedulerName, "default-scheduler"},
		{"enableServiceLinks", *p.Spec.EnableServiceLinks, true},
		{"securityContext set", p.Spec.SecurityContext != nil, true},
		{"imagePullPolicy without tag", c0.ImagePullPolicy, corev1.PullAlways},
		{"imagePullPolicy with tag", c1.ImagePullPolicy, corev1.PullIfNotPresent},
		{"terminationMessagePath", c0.TerminationMessagePath, "/dev/termination-log"},
		{"terminationMessagePolicy", c0.TerminationMessagePolicy, corev1.TerminationMessageReadFile},
		{"port protocol", c0.Ports[0].Protocol, corev1.ProtocolTCP},
		{"requests from limits", c0.Resources.Requests.Cpu().String(), "500m"},
		{"priority", *p.Spec.Priority, int32(0)},
		{"preemptionPolicy", *p.Spec.PreemptionPolicy, corev1.PreemptLowerPriority},
		{"phase", p.Status.Phase, corev1.PodPending},
		{"qosClass", p.Status.QOSClass, corev1.PodQOSBurstable},
	}
	for _, c := range checks {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	var tolerations []string
	for _, tol := range p.Spec.Tolerations {
		tolerations = append(tolerations, fmt.Sprintf("%s:%s:%s:%d", tol.Key, tol.Operator, tol.Effect, *tol.TolerationSeconds))
	}
	if want := "node.kubernetes.io/not-ready:Exists:NoExecute:300 node.kubernetes.io/unreachable:Exists:NoExecute:300"; strings.Join(tolerations, " ") != want {
		t.Errorf("tolerations = %v, want %s", tolerations, want)
	}
}

// A panic inside the handler chain answers 500 and the server carries on.
func TestPanicRecovery(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) {
		inner := c.Authenticator
		c.Authenticator = auth.AuthenticatorFunc(func(r *http.Request) (*auth.AuthResult, bool, error) {
			if strings.HasSuffix(r.URL.Path, "/boom") {
				panic("boom")
			}
			return inner.AuthenticateRequest(r)
		})
	})
	code, body := ts.do(t, "GET", "/api/v1/namespaces/default/pods/boom", "", "")
	if code != 500 || !strings.Contains(body, `"reason":"InternalError"`) || !strings.Contains(body, "boom") {
		t.Fatalf("panicking request: %d %s, want a 500 Status", code, body)
	}
	if code, _ := ts.do(t, "GET", "/api/v1/namespaces/default/pods", "", ""); code != 200 {
		t.Errorf("next request: %d, want 200", code)
	}
}

// holdRequest starts a POST whose body never ends: the server holds it
// in flight (reading the body) until the connection is closed. It returns
// the connection, from which the response can be read.
func holdRequest(t *testing.T, ts *testServer) net.Conn {
	t.Helper()
	return holdRequestAs(t, ts, adminToken, "/api/v1/namespaces/default/pods")
}

// holdRequestAs is holdRequest with the bearer token and path given.
func holdRequestAs(t *testing.T, ts *testServer, token, path string) net.Conn {
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
	req := "POST " + path + " HTTP/1.1\r\nHost: " + u.Host +
		"\r\nAuthorization: Bearer " + token + "\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"apiVersion\":"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestInFlightLimits: while a write fills the only seat for writes, a
// second write is 429 with Retry-After, the admin's is served, the
// scheduler's Lease write has seats of its own and a student's waits with
// the others, and reads are limited apart.
func TestInFlightLimits(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) {
		// The held write must outlast the checks, which on a starved
		// machine (four busy loops beside the whole suite) took longer
		// than a 2 s timeout every time for 2 minutes; closing its
		// connection ends it.
		c.RequestTimeout = time.Minute
		c.MaxMutatingRequestsInFlight = 1
	})
	const lease = `{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"kube-scheduler"}}`
	const leases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases"
	var refused *http.Response
	var refusedBody string
	held := func() bool {
		resp, body := ts.post(t, "/api/v1/namespaces/default/pods", podJSON, "Bearer "+studentToken)
		if resp.StatusCode == 429 {
			refused, refusedBody = resp, body
		}
		return resp.StatusCode == 429
	}
	whileHeld(t, func() net.Conn { return holdRequest(t, ts) }, held, func() string {
		var errs []string
		// system:masters is served past the limit, as by kube-apiserver.
		if c, body := ts.do(t, "POST", "/api/v1/namespaces/default/pods", "application/json", podJSON); c == 429 {
			errs = append(errs, "the admin's write: 429 "+body)
		}
		// The scheduler's leader election has seats of its own (APF's
		// leader-election priority level); a Lease write of a user
		// without a priority level waits with the other writes. (201, or
		// 409 on a second try: served either way.)
		if c, body := ts.do(t, "POST", leases, "application/json", lease, "Impersonate-User", "system:kube-scheduler"); c != 201 && c != 409 {
			errs = append(errs, fmt.Sprintf("the scheduler's Lease create: %d %s, want it served", c, body))
		}
		if c, _ := ts.do(t, "POST", leases, "application/json", strings.Replace(lease, "kube-scheduler", "other", 1), "Impersonate-User", "student"); c != 429 {
			errs = append(errs, fmt.Sprintf("the student's Lease create: %d, want 429", c))
		}
		// Reads are limited separately.
		if c, _ := ts.do(t, "GET", "/api/v1/namespaces/default/pods", "", ""); c != 200 {
			errs = append(errs, fmt.Sprintf("a read: %d", c))
		}
		return strings.Join(errs, "; ")
	})
	if refused.Header.Get("Retry-After") != "1" || !strings.Contains(refusedBody, `"reason":"TooManyRequests"`) {
		t.Errorf("429 answer: Retry-After %q body %s", refused.Header.Get("Retry-After"), refusedBody)
	}
}

// TestRequestTimeout: a request still unfinished after the request
// timeout (its body never comes) is answered 504 with kube-apiserver's
// message.
func TestRequestTimeout(t *testing.T) {
	ts := startServer(t, func(c *apiserver.Config) { c.RequestTimeout = 2 * time.Second })
	held := holdRequest(t, ts)
	if err := held.SetReadDeadline(time.Now().Add(waitTimeout)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(held), nil)
	if err != nil {
		t.Fatalf("held request: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 504 || !strings.Contains(string(b), "Timeout: request did not complete within requested timeout - context deadline exceeded") {
		t.Errorf("held request: %d %s, want 504 Timeout", resp.StatusCode, b)
	}
}

// whileHeld runs check while a request that hold starts fills the
// server's seats, as held confirms before check and again after it.
// When the held request ended meanwhile (on a busy machine, its request
// timeout, kept short for the tests that need it to end, may pass during
// check), check's verdict tells nothing: whileHeld tries again with a new
// one, until waitTimeout. check returns why it failed, "" if it passed.
func whileHeld(t *testing.T, hold func() net.Conn, held func() bool, check func() string) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		conn := hold()
		var failed string
		ok := eventuallyHeld(held, deadline)
		if ok {
			failed = check()
			ok = held()
		}
		conn.Close()
		if ok {
			if failed != "" {
				t.Errorf("while a request was held: %s", failed)
			}
			return
		}
	}
	t.Fatalf("no check ran while a request was held, within %s", waitTimeout)
}

// eventuallyHeld polls held until it is true (false at deadline).
func eventuallyHeld(held func() bool, deadline time.Time) bool {
	for !held() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

// post sends a POST of body as JSON with the Authorization header auth
// and returns the response (its body already read and closed) and body.
func (ts *testServer) post(tb testing.TB, path, body, auth string) (*http.Response, string) {
	tb.Helper()
	req, _ := http.NewRequest("POST", ts.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// The trace of one create lists every step in order, with go-restful's
// route. The whole request's trace has no stage; the stage-1 event
// carries the trace as it was when admission had passed.
func TestRequestTrace(t *testing.T) {
	rec := flow.NewRecorder()
	// The server's start-up writes (roles, priority classes, leases...)
	// come first; a buffer they fill drops the create's events.
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) { c.Recorder = rec })
	mustCreatePod(t, ts.client, "default", testPod("traced", nil))
	var tr, admitted *flow.RequestTrace
	var ev flow.Event
	deadline := time.After(waitTimeout)
	for tr == nil {
		select {
		case e := <-sub.Events():
			switch {
			case e.Stage == flow.StageAdmitted:
				admitted = e.Request
			case e.Request != nil && e.Request.Method == "POST" && e.Request.Code == 201:
				ev, tr = e, e.Request
			}
		case <-deadline:
			t.Fatalf("no trace of the create (%d events dropped)", sub.Dropped())
		}
	}
	if tr.Route != "POST /api/v1/namespaces/{namespace}/pods" || tr.User != "admin" || ev.Stage != 0 || ev.Object.Name != "traced" || ev.Object.UID == "" {
		t.Errorf("trace route %q user %q stage %v object %+v", tr.Route, tr.User, ev.Stage, ev.Object)
	}
	if admitted == nil {
		t.Fatal("no stage-1 event before the trace of the create")
	}
	// Each admission plugin that handles a create, in its phases (the
	// server runs without ServiceAccount here).
	admission := "admission admission admission admission admission admission admission admission admission admission"
	if got, want := stepNames(admitted.Steps), "received goroutine authenticated authorized aggregator kube-apiserver dispatched decoded defaulted "+admission; got != want {
		t.Errorf("stage-1 steps = %s\nwant           %s", got, want)
	}
	want := "received goroutine authenticated authorized aggregator kube-apiserver dispatched decoded defaulted " + admission + " stored responded"
	if got := stepNames(tr.Steps); got != want {
		t.Errorf("steps = %s\nwant    %s", got, want)
	}
	var plugins []string
	for _, s := range tr.Steps {
		if s.Name == "admission" {
			plugins = append(plugins, s.Fields["phase"]+" "+s.Fields["plugin"])
		}
	}
	if got, want := strings.Join(plugins, ", "), "mutating NamespaceLifecycle, mutating LimitRanger, mutating NodeRestriction, mutating Priority, "+
		"mutating DefaultTolerationSeconds, mutating DefaultStorageClass, mutating StorageObjectInUseProtection, "+
		"validating LimitRanger, validating Priority, validating ResourceQuota"; got != want {
		t.Errorf("admission steps = %s\nwant %s", got, want)
	}
	var mu sync.Mutex
	mu.Lock()
	defer mu.Unlock()
	for _, s := range tr.Steps {
		switch s.Name {
		case "dispatched":
			if s.Fields["webservice"] != "/api/v1" || s.Fields["params"] != "namespace=default" {
				t.Errorf("dispatched fields %v", s.Fields)
			}
		case "authorized":
			if !strings.Contains(s.Fields["reason"], `ClusterRoleBinding "cluster-admin"`) {
				t.Errorf("authorized reason %q", s.Fields["reason"])
			}
		case "stored":
			if s.Fields["key"] != "/registry/pods/default/traced" || s.Fields["revision"] == "" {
				t.Errorf("stored fields %v", s.Fields)
			}
		}
	}
}
