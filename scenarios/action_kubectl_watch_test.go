package scenarios

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestKubectlLogParser reads kubectl v1.32's -v=8 lines (as a run logged
// them) into requests: the method and URL, the request's Accept and
// User-Agent, the status, the response's Audit-Id and Content-Type, and a
// list's resourceVersion from its body.
func TestKubectlLogParser(t *testing.T) {
	log := []string{
		`I1204 21:01:02.863046   29105 helper.go:113] "Request Body" body=""`,
		`I1204 21:01:02.863138   29105 round_trippers.go:470] GET https://127.0.0.1:34041/api/v1/namespaces/default/pods?limit=500`,
		`I1204 21:01:02.863147   29105 round_trippers.go:476] Request Headers:`,
		`I1204 21:01:02.863155   29105 round_trippers.go:480]     Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json`,
		`I1204 21:01:02.863161   29105 round_trippers.go:480]     User-Agent: kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07`,
		`I1204 21:01:02.864876   29105 round_trippers.go:581] Response Status: 200 OK in 1 milliseconds`,
		`I1204 21:01:02.864898   29105 round_trippers.go:584] Response Headers:`,
		`I1204 21:01:02.864907   29105 round_trippers.go:587]     Audit-Id: 7b2d85b7`,
		`I1204 21:01:02.864917   29105 round_trippers.go:587]     Content-Type: application/json`,
		`I1204 21:01:02.865215   29105 helper.go:113] "Response Body" body="{\"kind\":\"Table\",\"apiVersion\":\"meta.k8s.io/v1\",\"metadata\":{\"resourceVersion\":\"194\"},\"columnDefinitions\" [truncated 2177 chars]"`,
		`I1204 21:01:02.866016   29105 round_trippers.go:470] GET https://127.0.0.1:34041/api/v1/namespaces/default/pods?resourceVersion=194&watch=true`,
		`I1204 21:01:02.866069   29105 round_trippers.go:476] Request Headers:`,
		`I1204 21:01:02.866081   29105 round_trippers.go:480]     User-Agent: kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07`,
		`I1204 21:01:02.866640   29105 round_trippers.go:581] Response Status: 200 OK in 0 milliseconds`,
		`I1204 21:01:02.866648   29105 round_trippers.go:584] Response Headers:`,
		`I1204 21:01:02.866662   29105 round_trippers.go:587]     Audit-Id: 51626b21`,
		`NAME   READY   STATUS`,
	}
	l := newWatchLog()
	var lp kubectlLogParser
	for _, s := range log {
		lp.line(l, s)
	}
	want := []clientRequest{
		{Method: "GET", URL: "https://127.0.0.1:34041/api/v1/namespaces/default/pods?limit=500", Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
			UserAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07", Status: "200 OK", AuditID: "7b2d85b7", ContentType: "application/json", ListRV: "194"},
		{Method: "GET", URL: "https://127.0.0.1:34041/api/v1/namespaces/default/pods?resourceVersion=194&watch=true",
			UserAgent: "kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07", Status: "200 OK", AuditID: "51626b21"},
	}
	if len(l.reqs) != len(want) {
		t.Fatalf("%d requests, want %d: %+v", len(l.reqs), len(want), l.reqs)
	}
	for i := range want {
		if l.reqs[i] != want[i] {
			t.Errorf("request %d:\n got %+v\nwant %+v", i, l.reqs[i], want[i])
		}
	}
	if !l.reqs[1].isWatch() || l.reqs[0].isWatch() || l.reqs[1].pathQuery() != "/api/v1/namespaces/default/pods?resourceVersion=194&watch=true" {
		t.Errorf("isWatch/pathQuery wrong: %+v", l.reqs)
	}
}

func TestParseKubectlWatch(t *testing.T) {
	pod := []*unstructured.Unstructured{decodedPod()}
	create := "{create: \"" + "apiVersion: v1\\nkind: Pod\\nmetadata: {name: web}\\n" + "\""
	checkParse(t, parseKubectlWatch, []parseCase[actionRunner]{
		{name: "defaults", key: "kubectlWatch", src: create + "}",
			want: &KubectlWatchAction{Namespace: "default", Create: &ApplyAction{Create: true, Objects: pod}, Until: "Running"}},
		{name: "until", key: "kubectlWatch", src: create + ", until: ContainerCreating}",
			want: &KubectlWatchAction{Namespace: "default", Create: &ApplyAction{Create: true, Objects: pod}, Until: "ContainerCreating"}},
		{name: "two words", key: "kubectlWatch", src: create + ", until: 'Init 0'}", wantErr: `1:71: kubectlWatch.until: "Init 0": one word of the STATUS column (Running)`},
		{name: "another namespace", key: "kubectlWatch", src: create + ", namespace: kube-system}", wantErr: `1:10: kubectlWatch.create: create one Pod, in the watched namespace kube-system`},
		{name: "no pod", key: "kubectlWatch", src: "{until: Running}", wantErr: `1:1: kubectlWatch: missing field "create"`},
	})
}
