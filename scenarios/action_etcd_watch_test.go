package scenarios

import (
	"bufio"
	"context"
	"fmt"
	"net/textproto"
	"strings"
	"testing"
)

func TestParseEtcdWatch(t *testing.T) {
	checkParse(t, parseEtcdWatch, []parseCase[actionRunner]{
		{name: "from a revision", key: "etcdWatch", src: "{key: /registry/pods/default/hist, fromRevision: 1, count: 4}",
			want: &EtcdWatchAction{Key: "/registry/pods/default/hist", FromRevision: 1, Count: 4}},
		{name: "from a resourceVersion, a prefix", key: "etcdWatch", src: "{key: /registry/pods/, prefix: true, fromResourceVersionOf: {kind: Pod, name: web}}",
			want: &EtcdWatchAction{Key: "/registry/pods/", Prefix: true, Count: 1,
				FromResourceVersionOf: &ResourceVersionRef{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: DefaultNamespace}, Version: "first"}}},
		{name: "no start", key: "etcdWatch", src: "{key: /registry/pods/}",
			wantErr: "1:1: etcdWatch: give exactly one of fromRevision and fromResourceVersionOf"},
		{name: "two starts", key: "etcdWatch", src: "{key: /registry/pods/, fromRevision: 3, fromResourceVersionOf: {kind: Pod, name: web}}",
			wantErr: "1:1: etcdWatch: give exactly one of fromRevision and fromResourceVersionOf"},
		{name: "revision 0", key: "etcdWatch", src: "{key: /registry/pods/, fromRevision: 0}",
			wantErr: "1:38: etcdWatch.fromRevision: 0: revisions start at 1"},
		{name: "a bad start's version", key: "etcdWatch", src: "{key: /registry/pods/, fromResourceVersionOf: {kind: Pod, name: web, version: last}}",
			wantErr: `1:79: etcdWatch.fromResourceVersionOf.version: "last" is not one of first, current`},
		{name: "outside the registry", key: "etcdWatch", src: "{key: /secret, fromRevision: 1}",
			wantErr: `1:7: etcdWatch.key: "/secret" is not under /registry/, where the API server keeps its objects`},
	})
}

func TestParseHTTPResourceVersionOf(t *testing.T) {
	ref := &ResourceVersionRef{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: DefaultNamespace}, Version: "current"}
	checkParse(t, parseHTTP, []parseCase[actionRunner]{
		{name: "a watch to the end, from a resourceVersion", key: "http",
			src:  "{path: /api/v1/pods, mode: watch, count: 0, resourceVersionOf: {kind: Pod, name: web, version: current}}",
			want: &HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeWatch, Proto: ProtoHTTP2, Count: 0, Interval: DefaultPollInterval, ResourceVersionOf: ref}},
		{name: "count 0 outside a watch", key: "http", src: "{path: /api, mode: poll, count: 0}",
			wantErr: "1:33: http.count: 0: use 1 to 1000 (0 for a watch read until the server ends it)"},
		{name: "a version that is not", key: "http", src: "{path: /api, resourceVersionOf: {kind: Pod, name: web, version: last}}",
			wantErr: `1:65: http.resourceVersionOf.version: "last" is not one of first, current`},
	})
}

// TestLastChunk: the end of a chunked response is logged as it came:
// "0\r\n\r\n" without trailers, the trailer lines in it otherwise.
func TestLastChunk(t *testing.T) {
	for _, tt := range []struct{ rest, want string }{
		{"\r\n", `< last chunk "0\r\n\r\n": size 0, no trailer fields, then the empty line: the response is complete`},
		{"Expires: never\r\n\r\n", `< last chunk "0\r\nExpires: never\r\n\r\n": size 0, 1 trailer fields, then the empty line: the response is complete`},
	} {
		var log []string
		br := bufio.NewReader(strings.NewReader(tt.rest))
		r := http1Reader{ctx: context.Background(), br: br, tp: textproto.NewReader(br), ex: &exchange{},
			logf: func(f string, args ...any) { log = append(log, fmt.Sprintf(f, args...)) }}
		if err := r.lastChunk("0"); err != nil {
			t.Fatal(err)
		}
		if len(log) != 1 || log[0] != tt.want {
			t.Errorf("logged %q, want %q", log, tt.want)
		}
	}
}
