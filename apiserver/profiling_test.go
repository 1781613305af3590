package apiserver_test

import (
	"strings"
	"testing"
)

// TestProfiling: /debug/pprof/ is served to system:masters, as
// kube-apiserver's --profiling; a user without a grant for the path is
// 403, and so is an anonymous request.
func TestProfiling(t *testing.T) {
	ts := startServer(t)
	code, body := ts.do(t, "GET", "/debug/pprof/", "", "")
	if code != 200 || !strings.Contains(body, "goroutine") {
		t.Fatalf("admin: %d %.200s", code, body)
	}
	code, body = ts.do(t, "GET", "/debug/pprof/goroutine?debug=1", "", "")
	if code != 200 || !strings.Contains(body, "goroutine profile: total") {
		t.Fatalf("admin goroutine profile: %d %.200s", code, body)
	}
	code, body = ts.do(t, "GET", "/debug/pprof/", "", "", "Authorization", "Bearer "+studentToken)
	if code != 403 || !strings.Contains(body, `cannot get path \"/debug/pprof/\"`) {
		t.Errorf("student: %d %s", code, body)
	}
	if code, body = ts.do(t, "GET", "/debug/pprof/", "", "", "Authorization", ""); code != 403 || !strings.Contains(body, `User \"system:anonymous\" cannot get path`) {
		t.Errorf("anonymous: %d %s", code, body)
	}
}
