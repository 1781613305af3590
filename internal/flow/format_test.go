package flow_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

func TestWriteTrace(t *testing.T) {
	tr := &flow.RequestTrace{
		Method: "POST", URI: "/api/v1/namespaces/default/pods", Proto: "HTTP/2.0", User: "admin",
		Route: "POST /api/v1/namespaces/{namespace}/pods", Code: 201, BytesSent: 1234, Duration: 3456789 * time.Nanosecond,
		Steps: []flow.Step{
			{Name: "received", At: 0, Outcome: "ok", Detail: "POST ... over HTTP/2.0"},
			{Name: "stored", At: 2500 * time.Microsecond, Outcome: "ok", Detail: "etcd create /registry/pods/default/web at revision 7"},
		},
	}
	var b strings.Builder
	if err := flow.WriteTrace(&b, tr); err != nil {
		t.Fatal(err)
	}
	want := "POST /api/v1/namespaces/default/pods  HTTP/2.0  user admin  route POST /api/v1/namespaces/{namespace}/pods  → 201, 1234 bytes in 3.5ms\n" +
		"        +0s  received      ok        POST ... over HTTP/2.0\n" +
		"     +2.5ms  stored        ok        etcd create /registry/pods/default/web at revision 7\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
