package cluster_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubesim/kubesim/internal/pki"
)

// watchPath is the legacy watch URL of the articles: one pod, by name.
const watchPath = "/api/v1/watch/namespaces/default/pods/mysql-0"

// watchEvent is one line of a JSON watch stream.
type watchEvent struct {
	Type   string     `json:"type"`
	Object corev1.Pod `json:"object"`
}

// mustDecodeWatchEvent decodes one watch event, failing unless it is a
// single JSON object with exactly the keys type and object, and object a
// Pod with no field a Pod lacks.
func mustDecodeWatchEvent(tb testing.TB, line []byte) watchEvent {
	tb.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(line, &keys); err != nil {
		tb.Fatalf("watch event %q: %v", line, err)
	}
	if got := slices.Sorted(maps.Keys(keys)); !slices.Equal(got, []string{"object", "type"}) {
		tb.Fatalf("watch event %q: got keys %q, want [object type]", line, got)
	}
	var ev watchEvent
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		tb.Fatalf("watch event %q: %v", line, err)
	}
	if dec.More() {
		tb.Fatalf("watch event %q: more than one JSON value", line)
	}
	return ev
}

// mysqlStep changes pod mysql-0 with kubectl; after it, the watch of
// mysql-0 must deliver the events of want, and check looks at each.
type mysqlStep struct {
	name  string
	args  []string
	stdin string
	want  []string // event types
	check func(tb testing.TB, ev watchEvent)
}

// mysqlSteps creates, changes and deletes mysql-0.
func mysqlSteps() []mysqlStep {
	return []mysqlStep{
		{"create", []string{"apply", "-f", "-"}, podManifest("mysql-0", "mysql:8.0"), []string{"ADDED"}, func(tb testing.TB, ev watchEvent) {
			tb.Helper()
			if ev.Object.Status.Phase != corev1.PodPending || ev.Object.Spec.Containers[0].Image != "mysql:8.0" {
				tb.Errorf("ADDED: got phase %q image %q, want Pending mysql:8.0", ev.Object.Status.Phase, ev.Object.Spec.Containers[0].Image)
			}
		}},
		{"label", []string{"label", "pod", "mysql-0", "app=mysql"}, "", []string{"MODIFIED"}, func(tb testing.TB, ev watchEvent) {
			tb.Helper()
			if got := ev.Object.Labels["app"]; got != "mysql" {
				tb.Errorf("MODIFIED after label: got label app=%q, want mysql", got)
			}
		}},
		{"new image", []string{"apply", "-f", "-"}, podManifest("mysql-0", "mysql:8.4"), []string{"MODIFIED"}, func(tb testing.TB, ev watchEvent) {
			tb.Helper()
			if got := ev.Object.Spec.Containers[0].Image; got != "mysql:8.4" {
				tb.Errorf("MODIFIED after apply: got image %q, want mysql:8.4", got)
			}
		}},
		// Not bound to a node: the deletion sets deletionTimestamp (with
		// grace period 0) and removes the pod in the same request.
		{"delete", []string{"delete", "pod", "mysql-0", "--wait=false"}, "", []string{"MODIFIED", "DELETED"}, func(tb testing.TB, ev watchEvent) {
			tb.Helper()
			if ev.Object.DeletionTimestamp == nil || deref(ev.Object.DeletionGracePeriodSeconds) != 0 {
				tb.Errorf("%s after delete: got deletionTimestamp %v, deletionGracePeriodSeconds %v; want set, 0",
					ev.Type, ev.Object.DeletionTimestamp, ev.Object.DeletionGracePeriodSeconds)
			}
		}},
	}
}

// checkEventSequence checks what holds for every event of one watch: the
// same pod throughout, resourceVersions growing strictly.
func checkEventSequence(tb testing.TB, evs []watchEvent) {
	tb.Helper()
	var lastRV uint64
	for i, ev := range evs {
		o := ev.Object
		if o.APIVersion != "v1" || o.Kind != "Pod" || o.Namespace != "default" || o.Name != "mysql-0" {
			tb.Errorf("event %d: got %s %s %s/%s, want v1 Pod default/mysql-0", i, o.APIVersion, o.Kind, o.Namespace, o.Name)
		}
		if o.UID == "" || o.UID != evs[0].Object.UID {
			tb.Errorf("event %d: got uid %q, want %q as in the first event", i, o.UID, evs[0].Object.UID)
		}
		rv, err := strconv.ParseUint(o.ResourceVersion, 10, 64)
		if err != nil || rv <= lastRV {
			tb.Errorf("event %d (%s): got resourceVersion %q, want an integer above %d", i, ev.Type, o.ResourceVersion, lastRV)
		}
		lastRV = rv
	}
}

// TestCurlWatchStreams runs the articles' command over HTTPS with the
// admin's bearer token,
//
//	curl --http1.1 --cacert ca.crt -H "Authorization: Bearer $TOKEN" -N <URL>/api/v1/watch/namespaces/default/pods/mysql-0
//
// and the same with --http2, while mysql-0 is created, changed and deleted
// with kubectl, and checks the response: 200, chunked for HTTP/1.1,
// application/json, one event per line.
func TestCurlWatchStreams(t *testing.T) {
	t.Parallel()
	curl := lookPath(t, "curl")
	c := mustStartCluster(t, "")
	token, err := c.Authority.Token(pki.Admin())
	if err != nil {
		t.Fatal(err)
	}
	ca := filepath.Join(c.Authority.Dir(), pki.CACertFile)
	for _, proto := range []struct {
		flag, status string
		chunked      bool
	}{
		{"--http1.1", "HTTP/1.1 200 OK", true},
		{"--http2", "HTTP/2 200", false},
	} {
		t.Run(proto.flag, func(t *testing.T) {
			k := newKubectl(t, c)
			// -D - puts the response headers on stdout, before the body.
			args := []string{proto.flag, "--cacert", ca, "-H", "Authorization: Bearer " + token, "-N", "-sS", "-D", "-", c.URL + watchPath}
			s := startLineStream(t, "curl "+proto.flag+" ... "+watchPath, func(ctx context.Context) *exec.Cmd {
				cmd := exec.CommandContext(ctx, curl, args...)
				cmd.WaitDelay = time.Second
				return cmd
			})
			// kube-apiserver sends the headers as soon as the watch is set
			// up, before any event: nothing may change before that.
			lines := s.waitFor(t, "end of the response headers", func(lines []string) bool { return slices.Contains(lines, "") })
			status, headers := lines[0], lines[1:slices.Index(lines, "")]
			if strings.TrimSpace(status) != proto.status {
				t.Errorf("status line: got %q, want %q", status, proto.status)
			}
			want := []string{"content-type: application/json"}
			if proto.chunked {
				want = append(want, "transfer-encoding: chunked")
			}
			for _, w := range want {
				if !slices.ContainsFunc(headers, func(h string) bool { return strings.EqualFold(h, w) }) {
					t.Errorf("headers %q lack %q", headers, w)
				}
			}
			if slices.ContainsFunc(headers, func(h string) bool { return strings.HasPrefix(strings.ToLower(h), "content-length:") }) {
				t.Errorf("headers %q: a streamed watch has no Content-Length", headers)
			}

			var wantTypes []string
			for _, step := range mysqlSteps() {
				k.mustWith(t, step.stdin, step.args...)
				wantTypes = append(wantTypes, step.want...)
				// Each step's events arrive before the next step starts.
				s.waitFor(t, fmt.Sprintf("%d events after %s", len(wantTypes), step.name), func(lines []string) bool {
					return len(lines)-len(headers)-2 >= len(wantTypes)
				})
			}
			s.stop()
			lines, _ = s.snapshot()
			body := lines[len(headers)+2:]
			var evs []watchEvent
			var gotTypes []string
			for _, l := range body {
				ev := mustDecodeWatchEvent(t, []byte(l))
				evs = append(evs, ev)
				gotTypes = append(gotTypes, ev.Type)
			}
			if !slices.Equal(gotTypes, wantTypes) {
				t.Fatalf("event types: got %q, want %q\nbody:\n%s", gotTypes, wantTypes, strings.Join(body, "\n"))
			}
			i := 0
			for _, step := range mysqlSteps() {
				for range step.want {
					step.check(t, evs[i])
					i++
				}
			}
			checkEventSequence(t, evs)
		})
	}
}

// TestWatchRawHTTP1OneChunkPerEvent speaks HTTP/1.1 over a TLS connection
// to the watch URL and decodes the chunked body itself: every event comes
// whole in a chunk, flushed as soon as it happens (the next change is made
// only after the chunk has been read), a chunk of its own when it is the
// step's only event. A step of two writes (the delete's MODIFIED and
// DELETED) may have both in one chunk: as kube-apiserver's watch server,
// the writer flushes when no other event waits.
func TestWatchRawHTTP1OneChunkPerEvent(t *testing.T) {
	t.Parallel()
	c := mustStartCluster(t, "")
	k := newKubectl(t, c)
	u, err := url.Parse(c.URL)
	if err != nil {
		t.Fatal(err)
	}
	token, err := c.Authority.Token(pki.Admin())
	if err != nil {
		t.Fatal(err)
	}
	conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: c.Authority.CAPool(), NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	req := "GET " + watchPath + " HTTP/1.1\r\nHost: " + u.Host + "\r\nAuthorization: Bearer " + token + "\r\nAccept: application/json\r\nUser-Agent: kubesim-e2e-raw\r\n\r\n"
	if _, err := io.WriteString(conn, req); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)

	// The status line and headers arrive before any event.
	if err := conn.SetReadDeadline(time.Now().Add(waitTimeout)); err != nil {
		t.Fatal(err)
	}
	status := mustReadCRLFLine(t, r, "status line")
	if status != "HTTP/1.1 200 OK" {
		t.Fatalf("status line: got %q, want %q", status, "HTTP/1.1 200 OK")
	}
	header := map[string][]string{}
	for {
		l := mustReadCRLFLine(t, r, "header line")
		if l == "" {
			break
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("header line %q has no colon", l)
		}
		name = strings.ToLower(name)
		header[name] = append(header[name], strings.TrimSpace(value))
	}
	for name, want := range map[string]string{"transfer-encoding": "chunked", "content-type": "application/json"} {
		if got := header[name]; !slices.Equal(got, []string{want}) {
			t.Errorf("header %s: got %q, want [%q]", name, got, want)
		}
	}
	if got := header["content-length"]; got != nil {
		t.Errorf("header content-length: got %q, want none with chunked encoding", got)
	}
	if t.Failed() {
		t.FailNow()
	}

	var evs []watchEvent
	for _, step := range mysqlSteps() {
		k.mustWith(t, step.stdin, step.args...)
		for _, ev := range readChunkedEvents(t, conn, r, step.name, len(step.want)) {
			if want := step.want[0]; ev.Type != want {
				t.Fatalf("after %s: got a %s event, want %s", step.name, ev.Type, want)
			}
			step.want = step.want[1:]
			step.check(t, ev)
			evs = append(evs, ev)
		}
	}
	checkEventSequence(t, evs)
}

// readChunkedEvents reads chunks until n events have come: a lone event
// in a chunk of its own (a JSON object and its newline), several in any
// chunks that end with the last of them (a batch that outgrows the
// server's write buffer goes out in more than one chunk).
func readChunkedEvents(t *testing.T, conn net.Conn, r *bufio.Reader, step string, n int) []watchEvent {
	t.Helper()
	var evs []watchEvent
	var buf []byte
	for len(evs) < n {
		if err := conn.SetReadDeadline(time.Now().Add(waitTimeout)); err != nil {
			t.Fatal(err)
		}
		chunk := mustReadChunk(t, r, fmt.Sprintf("event %d of %d after %s", len(evs)+1, n, step))
		if n == 1 && (bytes.Count(chunk, []byte("\n")) != 1 || !bytes.HasSuffix(chunk, []byte("\n"))) {
			t.Fatalf("chunk after %s: got %q, want exactly one event ending in a newline", step, chunk)
		}
		buf = append(buf, chunk...)
		for {
			line, rest, ok := bytes.Cut(buf, []byte("\n"))
			if !ok {
				break
			}
			evs, buf = append(evs, mustDecodeWatchEvent(t, line)), rest
		}
	}
	if len(evs) != n || len(buf) != 0 {
		t.Fatalf("after %s: %d events and %q left, want %d events ending with a chunk", step, len(evs), buf, n)
	}
	return evs
}

// mustReadCRLFLine reads one line ending in CRLF and returns it without.
func mustReadCRLFLine(tb testing.TB, r *bufio.Reader, what string) string {
	tb.Helper()
	l, err := r.ReadString('\n')
	if err != nil {
		tb.Fatalf("reading the %s: got %q, %v", what, l, err)
	}
	if !strings.HasSuffix(l, "\r\n") {
		tb.Fatalf("%s %q does not end in CRLF", what, l)
	}
	return strings.TrimSuffix(l, "\r\n")
}

// mustReadChunk reads one chunk of a chunked body (RFC 9112 section 7.1):
// its size in hex (extensions after ';' ignored), CRLF, the data, CRLF.
// The last chunk (size 0) fails the test: a watch does not end by itself.
func mustReadChunk(tb testing.TB, r *bufio.Reader, what string) []byte {
	tb.Helper()
	sizeLine := mustReadCRLFLine(tb, r, "chunk size of "+what)
	hex, _, _ := strings.Cut(sizeLine, ";")
	size, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 31)
	if err != nil {
		tb.Fatalf("chunk size line of %s: got %q: %v", what, sizeLine, err)
	}
	if size == 0 {
		tb.Fatalf("waiting for %s: the server ended the body (last chunk)", what)
	}
	data := make([]byte, size+2)
	if _, err := io.ReadFull(r, data); err != nil {
		tb.Fatalf("reading %d bytes of %s: %v", size, what, err)
	}
	if !bytes.HasSuffix(data, []byte("\r\n")) {
		tb.Fatalf("chunk of %s (%d bytes): got %q, want it followed by CRLF", what, size, data)
	}
	return data[:size]
}
