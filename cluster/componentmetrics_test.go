package cluster_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/cluster"
	"github.com/kubesim/kubesim/cluster/clustertest"
	"github.com/kubesim/kubesim/internal/pki"
)

// componentGet GETs url with the client certificate of id (none for the
// zero Identity) or, if token is set, that bearer token, trusting the
// cluster's CA; it returns the status and body.
func componentGet(tb testing.TB, c *cluster.Cluster, url string, id pki.Identity, token string) (int, string) {
	tb.Helper()
	tc := &tls.Config{RootCAs: c.Authority.CAPool(), MinVersion: tls.VersionTLS12}
	if id.User != "" {
		certPEM, keyPEM, err := c.Authority.ClientCert(id)
		if err != nil {
			tb.Fatal(err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			tb.Fatal(err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tc}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// componentMetrics reads and parses url's /metrics as admin.
func componentMetrics(tb testing.TB, c *cluster.Cluster, base string) map[string]*dto.MetricFamily {
	tb.Helper()
	code, body := componentGet(tb, c, base+"/metrics", pki.Admin(), "")
	if code != http.StatusOK {
		tb.Fatalf("GET %s/metrics as admin: %d %s", base, code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("parse %s/metrics: %v", base, err)
	}
	return mfs
}

// metricValue sums the series of family whose labels include want.
func metricValue(mfs map[string]*dto.MetricFamily, family string, want map[string]string) (float64, bool) {
	var sum float64
	found := false
	for _, m := range mfs[family].GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && got[k] == v
		}
		if !match {
			continue
		}
		found = true
		sum += m.GetCounter().GetValue() + m.GetGauge().GetValue() + float64(m.GetHistogram().GetSampleCount())
	}
	return sum, found
}

// TestSchedulerMetricsEndpoint: the scheduler's secure port serves
// kube-scheduler's series: each pod it binds raises
// scheduler_schedule_attempts_total{result="scheduled"} and the attempt
// durations by one; scheduler_pending_pods has its four queues; it leads
// (leader_election_master_status 1). The API server's series are not
// there. As upstream's, the port lets in only whom the API server's
// SubjectAccessReview allows (upstream's 403 for the anonymous user and
// for the student).
func TestSchedulerMetricsEndpoint(t *testing.T) {
	c := clustertest.Start(t)
	base := c.SchedulerMetricsURL()
	if !strings.HasPrefix(base, "https://127.0.0.1:") {
		t.Fatalf("SchedulerMetricsURL() = %q", base)
	}
	client, err := c.AdminClient()
	if err != nil {
		t.Fatal(err)
	}
	scheduled := map[string]string{"result": "scheduled", "profile": "default-scheduler"}
	before := componentMetrics(t, c, base)
	s0, _ := metricValue(before, "scheduler_schedule_attempts_total", scheduled)
	d0, _ := metricValue(before, "scheduler_scheduling_attempt_duration_seconds", scheduled)
	const pods = 3
	for i := range pods {
		createAndWaitBound(t, client, fmt.Sprintf("counted-%d", i))
	}
	// The scheduler counts an attempt once its binding call has returned,
	// which may be after the pod's nodeName is seen: wait for the counts
	// to reach three, then check that they stopped there.
	var after map[string]*dto.MetricFamily
	var s1, d1 float64
	eventually(t, "the scheduler counts the three bindings", func() (bool, string) {
		after = componentMetrics(t, c, base)
		s1, _ = metricValue(after, "scheduler_schedule_attempts_total", scheduled)
		d1, _ = metricValue(after, "scheduler_scheduling_attempt_duration_seconds", scheduled)
		return s1-s0 >= pods && d1-d0 >= pods, fmt.Sprintf("attempts +%v, durations +%v", s1-s0, d1-d0)
	})
	if s1-s0 != pods {
		t.Errorf("scheduler_schedule_attempts_total%v rose by %v, want %d", scheduled, s1-s0, pods)
	}
	if d1-d0 != pods {
		t.Errorf("scheduler_scheduling_attempt_duration_seconds%v count rose by %v, want %d", scheduled, d1-d0, pods)
	}
	for _, q := range []string{"active", "backoff", "unschedulable", "gated"} {
		if _, ok := metricValue(after, "scheduler_pending_pods", map[string]string{"queue": q}); !ok {
			t.Errorf("scheduler_pending_pods{queue=%q} is not served", q)
		}
	}
	eventually(t, "the scheduler reports it leads", func() (bool, string) {
		v, ok := metricValue(componentMetrics(t, c, base), "leader_election_master_status", map[string]string{"name": "kube-scheduler"})
		return ok && v == 1, fmt.Sprintf("leader_election_master_status{name=kube-scheduler} = %v (served %v)", v, ok)
	})
	if _, ok := after["apiserver_request_total"]; ok {
		t.Errorf("the scheduler's /metrics serves apiserver_request_total")
	}
	checkForbidden(t, c, base)
}

// checkForbidden: without credentials, and as the student (a token the
// port checks by TokenReview), /metrics is upstream's 403.
func checkForbidden(t *testing.T, c *cluster.Cluster, base string) {
	student, err := c.Authority.Token(pki.Student())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		who, token string
	}{{"system:anonymous", ""}, {pki.StudentUser, student}} {
		code, body := componentGet(t, c, base+"/metrics", pki.Identity{}, tc.token)
		want := fmt.Sprintf(`"message":"forbidden: User \"%s\" cannot get path \"/metrics\""`, tc.who)
		if code != http.StatusForbidden || !strings.Contains(body, want) {
			t.Errorf("GET /metrics as %s: %d %s, want 403 with %s", tc.who, code, body, want)
		}
	}
}

// createAndWaitBound creates a pod and waits until it is bound.
func createAndWaitBound(t *testing.T, client kubernetes.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, name+" bound", func() (bool, string) {
		p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return p.Spec.NodeName != "", "nodeName " + p.Spec.NodeName
	})
}

// TestControllerManagerMetricsEndpoint: the controller manager's secure
// port serves the workqueues of its controllers (the deployment
// controller's among them) and its leader election, not the API server's
// queues nor the scheduler's series.
func TestControllerManagerMetricsEndpoint(t *testing.T) {
	c := clustertest.Start(t)
	base := c.ControllerManagerMetricsURL()
	eventually(t, "the controller manager's workqueues served", func() (bool, string) {
		mfs := componentMetrics(t, c, base)
		_, ok := metricValue(mfs, "workqueue_adds_total", map[string]string{"name": "deployment"})
		lead, _ := metricValue(mfs, "leader_election_master_status", map[string]string{"name": "kube-controller-manager"})
		return ok && lead == 1, fmt.Sprintf("workqueue_adds_total{name=deployment} served: %v, leader_election_master_status %v", ok, lead)
	})
	mfs := componentMetrics(t, c, base)
	if _, ok := metricValue(mfs, "workqueue_adds_total", map[string]string{"name": "autoregister"}); ok {
		t.Errorf("the controller manager serves the API server's workqueue autoregister")
	}
	for name := range mfs {
		if strings.HasPrefix(name, "scheduler_") || strings.HasPrefix(name, "apiserver_") {
			t.Errorf("the controller manager serves %s", name)
		}
	}
	checkForbidden(t, c, base)
}
