package apiserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// scrapeMetrics reads /metrics as admin and parses it.
func scrapeMetrics(tb testing.TB, ts *testServer) map[string]*dto.MetricFamily {
	tb.Helper()
	code, body := ts.do(tb, "GET", "/metrics", "", "")
	if code != http.StatusOK {
		tb.Fatalf("GET /metrics: %d %s", code, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		tb.Fatalf("parse /metrics: %v", err)
	}
	return mfs
}

// seriesValue is the value of the series of family whose labels include
// want (a counter's or gauge's value, a histogram's count); false if
// there is none.
func seriesValue(mfs map[string]*dto.MetricFamily, family string, want map[string]string) (float64, bool) {
	mf := mfs[family]
	if mf == nil {
		return 0, false
	}
	var sum float64
	found := false
	for _, m := range mf.Metric {
		if !hasLabels(m, want) {
			continue
		}
		found = true
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum, found
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	got := map[string]string{}
	for _, l := range m.Label {
		got[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// TestMetricsCountRequests: /metrics serves kube-apiserver's series with
// upstream's names, labels and help, and the request counts follow the
// requests sent: ten GETs of missing ConfigMaps raise
// apiserver_request_total{verb="GET",resource="configmaps",scope="resource",code="404"}
// and the request durations by ten, and etcd's gets by at least ten; a
// created ConfigMap is counted in apiserver_resource_objects; an open
// watch is counted in apiserver_longrunning_requests until it ends.
func TestMetricsCountRequests(t *testing.T) {
	ts := startServer(t)
	c := kubernetes.NewForConfigOrDie(ts.restConfig())
	ctx := context.Background()
	notFound := map[string]string{"verb": "GET", "group": "", "version": "v1", "resource": "configmaps", "subresource": "",
		"scope": "resource", "component": "apiserver", "code": "404", "dry_run": ""}
	duration := map[string]string{"verb": "GET", "resource": "configmaps", "scope": "resource", "component": "apiserver"}
	etcdGets := map[string]string{"operation": "get", "group": "", "resource": "configmaps"}
	before := scrapeMetrics(t, ts)
	n0, _ := seriesValue(before, "apiserver_request_total", notFound)
	d0, _ := seriesValue(before, "apiserver_request_duration_seconds", duration)
	e0, _ := seriesValue(before, "etcd_request_duration_seconds", etcdGets)
	const sent = 10
	for i := range sent {
		if _, err := c.CoreV1().ConfigMaps("default").Get(ctx, fmt.Sprintf("missing-%d", i), metav1.GetOptions{}); err == nil {
			t.Fatalf("get missing-%d: found", i)
		}
	}
	after := scrapeMetrics(t, ts)
	if n1, _ := seriesValue(after, "apiserver_request_total", notFound); n1-n0 != sent {
		t.Errorf("apiserver_request_total %v rose by %v, want %d", notFound, n1-n0, sent)
	}
	if d1, _ := seriesValue(after, "apiserver_request_duration_seconds", duration); d1-d0 < sent {
		t.Errorf("apiserver_request_duration_seconds count rose by %v, want at least %d", d1-d0, sent)
	}
	if e1, _ := seriesValue(after, "etcd_request_duration_seconds", etcdGets); e1-e0 < sent {
		t.Errorf("etcd_request_duration_seconds{operation=get,resource=configmaps} count rose by %v, want at least %d", e1-e0, sent)
	}
	checkObjectsAndWatches(t, ts, c)
}

// checkObjectsAndWatches: apiserver_resource_objects follows a create;
// apiserver_longrunning_requests counts a watch while it is open.
func checkObjectsAndWatches(t *testing.T, ts *testServer, c kubernetes.Interface) {
	ctx := context.Background()
	objects := map[string]string{"group": "", "resource": "podtemplates"}
	o0, _ := seriesValue(scrapeMetrics(t, ts), "apiserver_resource_objects", objects)
	pt := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "counted"},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}}
	if _, err := c.CoreV1().PodTemplates("default").Create(ctx, pt, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if o1, ok := seriesValue(scrapeMetrics(t, ts), "apiserver_resource_objects", objects); !ok || o1-o0 != 1 {
		t.Errorf("apiserver_resource_objects %v = %v (found %v), want %v", objects, o1, ok, o0+1)
	}
	watching := map[string]string{"verb": "WATCH", "resource": "podtemplates", "scope": "namespace", "component": "apiserver"}
	w0, _ := seriesValue(scrapeMetrics(t, ts), "apiserver_longrunning_requests", watching)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := c.CoreV1().PodTemplates("default").Watch(wctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the watch counted as long-running", func() bool {
		v, _ := seriesValue(scrapeMetrics(t, ts), "apiserver_longrunning_requests", watching)
		return v == w0+1
	})
	w.Stop()
	cancel()
	waitFor(t, 30*time.Second, "the ended watch no longer counted", func() bool {
		v, _ := seriesValue(scrapeMetrics(t, ts), "apiserver_longrunning_requests", watching)
		return v == w0
	})
}

// TestMetricsFamilies: the families kube-apiserver v1.37.2 serves, with
// its types and help text; apiserver_storage_objects, deprecated in 1.34,
// is hidden as there; no other component's series.
func TestMetricsFamilies(t *testing.T) {
	ts := startServer(t)
	if code, body := ts.do(t, "GET", "/api/v1/namespaces/default/configmaps", "", ""); code != http.StatusOK {
		t.Fatalf("list configmaps: %d %s", code, body)
	}
	mfs := scrapeMetrics(t, ts)
	for _, want := range []struct {
		name string
		typ  dto.MetricType
		help string
	}{
		{"apiserver_request_total", dto.MetricType_COUNTER, "[STABLE] Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code."},
		{"apiserver_request_duration_seconds", dto.MetricType_HISTOGRAM, "[STABLE] Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component."},
		{"apiserver_response_sizes", dto.MetricType_HISTOGRAM, "[STABLE] Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component."},
		{"etcd_request_duration_seconds", dto.MetricType_HISTOGRAM, "[ALPHA] Etcd request latency in seconds for each operation and object type."},
		{"etcd_requests_total", dto.MetricType_COUNTER, "[ALPHA] Etcd request counts for each operation and object type."},
		{"apiserver_resource_objects", dto.MetricType_GAUGE, "[ALPHA] Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1."},
		{"apiserver_current_inflight_requests", dto.MetricType_GAUGE, "[STABLE] Maximal number of currently used inflight request limit of this apiserver per request kind in last second."},
	} {
		mf := mfs[want.name]
		if mf == nil {
			t.Errorf("%s is not served", want.name)
			continue
		}
		if mf.GetType() != want.typ || mf.GetHelp() != want.help {
			t.Errorf("%s: %v %q, want %v %q", want.name, mf.GetType(), mf.GetHelp(), want.typ, want.help)
		}
	}
	for name := range mfs {
		if name == "apiserver_storage_objects" || strings.HasPrefix(name, "scheduler_") || name == "leader_election_master_status" {
			t.Errorf("%s is served; kube-apiserver v1.37.2 does not serve it", name)
		}
	}
}

// TestMetricsAuthorization: /metrics is a non-resource URL: a user
// without the system:monitoring group (or a role that allows it) gets
// upstream's 403; one in the group reads it through the default binding.
func TestMetricsAuthorization(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, "GET", "/metrics", "", "", "Impersonate-User", "alice")
	if code != http.StatusForbidden || !strings.Contains(body, `"message":"forbidden: User \"alice\" cannot get path \"/metrics\""`) ||
		!strings.Contains(body, `"reason":"Forbidden"`) {
		t.Errorf("GET /metrics as alice: %d %s, want upstream's 403", code, body)
	}
	code, body = ts.do(t, "GET", "/metrics", "", "", "Impersonate-User", "prometheus", "Impersonate-Group", "system:monitoring")
	if code != http.StatusOK || !strings.Contains(body, "# TYPE apiserver_request_total counter") {
		t.Errorf("GET /metrics as a member of system:monitoring: %d %.200s", code, body)
	}
}
