package apiserver_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestCustomResourceWatchCache: custom resources are watched through a
// watch cache, as upstream's cacher serves them: a server started on etcd
// that holds older revisions cannot replay them and answers a watch from
// before its start with an ERROR event, 410 Expired, where a watch of
// etcd itself would replay the change.
func TestCustomResourceWatchCache(t *testing.T) {
	first := startServer(t)
	mustCreateWidgetCRD(t, first)
	code, body := first.do(t, "POST", widgetsPath, mediaJSON, widgetBody("x", `{"size":2}`))
	if code != http.StatusCreated {
		t.Fatalf("create widget: %d %s", code, body)
	}
	rv := decodeWidget(t, body).GetResourceVersion()
	if code, body := first.do(t, "PATCH", widgetsPath+"/x", "application/merge-patch+json", `{"spec":{"size":3}}`); code != http.StatusOK {
		t.Fatalf("patch widget: %d %s", code, body)
	}

	// Through the first server, whose cache has the change: MODIFIED.
	if got := firstWatchEvent(t, first, widgetsPath+"?watch=1&resourceVersion="+rv); !strings.Contains(got, `"type":"MODIFIED"`) {
		t.Errorf("watch from %s on the first server: %s, want MODIFIED", rv, got)
	}
	// A second server on the same etcd starts its cache at etcd's
	// current revision: the change is older than its history.
	second := startServerOn(t, first)
	got := firstWatchEvent(t, second, widgetsPath+"?watch=1&resourceVersion="+rv)
	if !strings.Contains(got, `"type":"ERROR"`) || !strings.Contains(got, `"code":410`) || !strings.Contains(got, "too old resource version: "+rv) {
		t.Errorf("watch from %s on a new server: %s, want an ERROR event with 410 too old resource version", rv, got)
	}
}

// firstWatchEvent opens the watch at path and returns its first line.
func firstWatchEvent(t *testing.T, ts *testServer, path string) string {
	t.Helper()
	req, err := http.NewRequest("GET", ts.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	buf := make([]byte, 64<<10)
	n, _ := resp.Body.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return line
}
