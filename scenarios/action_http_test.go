package scenarios

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestParseHTTP(t *testing.T) {
	checkParse(t, parseHTTP, []parseCase[actionRunner]{
		{name: "defaults", key: "http", src: "{path: /api}",
			want: &HTTPAction{Method: "GET", Path: "/api", Mode: ModeRequest, Proto: ProtoHTTP2, Count: 1, Interval: DefaultPollInterval}},
		{name: "every field", key: "http", src: "{method: POST, path: /api/v1/namespaces, proto: http1, body: '{}', contentType: application/json}",
			want: &HTTPAction{Method: "POST", Path: "/api/v1/namespaces", Mode: ModeRequest, Proto: ProtoHTTP1, Count: 1, Interval: DefaultPollInterval, Body: "{}", ContentType: "application/json"}},
		{name: "poll", key: "http", src: "{path: /api, mode: poll, count: 3, interval: 500ms}",
			want: &HTTPAction{Method: "GET", Path: "/api", Mode: ModePoll, Proto: ProtoHTTP2, Count: 3, Interval: 500 * time.Millisecond}},
		{name: "no path", key: "http", src: "{mode: watch}", wantErr: `1:1: http: missing field "path"`},
		{name: "bad method", key: "http", src: "{path: /api, method: FETCH}", wantErr: `1:22: http.method: "FETCH" is not one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS`},
		{name: "count too large", key: "http", src: "{path: /api, mode: watch, count: 1001}", wantErr: `1:34: http.count: 1001: use 1 to 1000 (0 for a watch read until the server ends it)`},
		{name: "bad interval", key: "http", src: "{path: /api, mode: poll, interval: soon}", wantErr: `1:36: http.interval: bad duration "soon" (use a number with a unit: 500ms, 2s, 1m)`},
		{name: "body not a string", key: "http", src: "{path: /api, method: POST, body: {a: 1}}", wantErr: `1:34: http.body: expected a string, got a mapping`},
		{name: "watch that posts", key: "http", src: "{path: /api, method: POST, mode: watch}", wantErr: `1:1: http: mode watch only GETs (method is POST)`},
	})
}

// fakeAPI serves a list of pods at resourceVersion 10, and watches that
// send one MODIFIED event per resourceVersion after the one asked for
// (ADDED first when none is asked for), then stay open. It records the
// requests' paths and queries.
type fakeAPI struct {
	mu       sync.Mutex
	requests []string
	status   int // of lists; 0 is 200
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	n := len(f.requests)
	status := f.status
	f.mu.Unlock()
	w.Header().Set("Audit-Id", fmt.Sprint("audit-", n))
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Query().Get("watch") == "" && !strings.Contains(r.URL.Path, "/watch/") {
		if status != 0 {
			w.WriteHeader(status)
		}
		fmt.Fprint(w, `{"kind":"PodList","metadata":{"resourceVersion":"10"},"items":[]}`)
		return
	}
	rv, _ := strconv.Atoi(r.URL.Query().Get("resourceVersion"))
	typ := "MODIFIED"
	if rv == 0 {
		typ, rv = "ADDED", 10
	}
	for i := 1; i <= 2; i++ {
		fmt.Fprintf(w, `{"type":%q,"object":{"kind":"Pod","metadata":{"name":"web","resourceVersion":"%d"}}}`+"\n", typ, rv+i)
		w.(http.Flusher).Flush()
		typ = "MODIFIED"
	}
	<-r.Context().Done()
}

// startFakeAPI starts f over TLS with HTTP/2 and returns the client an
// http action uses.
func startFakeAPI(t *testing.T, f *fakeAPI) *httpClient {
	t.Helper()
	srv := httptest.NewUnstartedServer(f)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	base, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	tc := srv.Client().Transport.(*http.Transport).TLSClientConfig
	return &httpClient{base: base, tls: tc}
}

// TestHTTPRunModes runs each mode against fakeAPI and checks the result,
// the requests sent, and the transcript's telling lines.
func TestHTTPRunModes(t *testing.T) {
	for _, tc := range []struct {
		name         string
		action       HTTPAction
		wantRequests []string
		wantWatch    []string
		wantLines    []string
	}{
		{name: "request over HTTP/1.1", action: HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeRequest, Proto: ProtoHTTP1},
			wantRequests: []string{"/api/v1/pods"},
			wantLines:    []string{"> GET /api/v1/pods HTTP/1.1", "< HTTP/1.1 200 OK", "< Content-Type: application/json", "< body (65 bytes): {\"kind\":\"PodList\""}},
		{name: "request over HTTP/2", action: HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeRequest, Proto: ProtoHTTP2},
			wantRequests: []string{"/api/v1/pods"},
			wantLines:    []string{"> GET /api/v1/pods (HTTP/2: a HEADERS frame on a new stream)", "< HTTP/2.0 200 OK", "< DATA (65 bytes)"}},
		{name: "poll", action: HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModePoll, Proto: ProtoHTTP2, Count: 2, Interval: time.Hour},
			wantRequests: []string{"/api/v1/pods", "/api/v1/pods"},
			wantLines:    []string{"-- poll 1 of 2", "   resourceVersion 10", "-- poll 2 of 2"}},
		{name: "long poll", action: HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeLongPoll, Proto: ProtoHTTP1, Count: 2},
			wantRequests: []string{"/api/v1/pods", "/api/v1/pods?resourceVersion=10&watch=1", "/api/v1/pods?resourceVersion=11&watch=1"},
			wantWatch:    []string{"MODIFIED", "MODIFIED"},
			wantLines:    []string{"-- long-poll round 1 of 2: a watch from resourceVersion 10, which the client closes after its first event", "   round over; the next one from resourceVersion 11", "   round over; the next one from resourceVersion 12"}},
		{name: "watch over HTTP/1.1", action: HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeWatch, Proto: ProtoHTTP1, Count: 2},
			wantRequests: []string{"/api/v1/pods?watch=1"},
			wantWatch:    []string{"ADDED", "MODIFIED"},
			wantLines:    []string{"< Transfer-Encoding: chunked", "  event ADDED Pod web resourceVersion 11", "  (2 events read: the client closes the connection)"}},
		{name: "watch over HTTP/2", action: HTTPAction{Method: "GET", Path: "/api/v1/watch/pods", Mode: ModeWatch, Proto: ProtoHTTP2, Count: 2},
			wantRequests: []string{"/api/v1/watch/pods"},
			wantWatch:    []string{"ADDED", "MODIFIED"},
			wantLines:    []string{"  event MODIFIED Pod web resourceVersion 12", "  (2 events read: the client resets the stream, the connection stays)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := &fakeAPI{}
			p := &player{changed: make(chan struct{})}
			// A deadline, so that a pause that speed 0 should remove fails
			// the test rather than hanging it.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			r := &httpRun{ctx: ctx, p: p, a: &tc.action, hc: startFakeAPI(t, api)}
			p.startActing()
			err := r.run()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.action.Mode, err, strings.Join(r.res.HTTP, "\n"))
			}
			if r.res.Status != 200 || !slices.Equal(r.res.Watch, tc.wantWatch) {
				t.Errorf("status %d, watch events %v; want 200, %v", r.res.Status, r.res.Watch, tc.wantWatch)
			}
			api.mu.Lock()
			requests := slices.Clone(api.requests)
			api.mu.Unlock()
			if !slices.Equal(requests, tc.wantRequests) {
				t.Errorf("requests %q, want %q", requests, tc.wantRequests)
			}
			if got := len(p.auditIDs); got != len(tc.wantRequests) {
				t.Errorf("noted %d audit ids, want one per request (%d)", got, len(tc.wantRequests))
			}
			transcript := strings.Join(r.res.HTTP, "\n")
			for _, want := range tc.wantLines {
				if !strings.Contains(transcript, want) {
					t.Errorf("transcript lacks %q:\n%s", want, transcript)
				}
			}
		})
	}
}

// TestHTTPLongPollStopsAtError: when the first GET is not a 200 there are
// no rounds, and its status is the result.
func TestHTTPLongPollStopsAtError(t *testing.T) {
	api := &fakeAPI{status: http.StatusForbidden}
	a := &HTTPAction{Method: "GET", Path: "/api/v1/pods", Mode: ModeLongPoll, Proto: ProtoHTTP2, Count: 3}
	r := &httpRun{ctx: context.Background(), p: &player{}, a: a, hc: startFakeAPI(t, api)}
	if err := r.run(); err != nil {
		t.Fatal(err)
	}
	if r.res.Status != http.StatusForbidden || len(api.requests) != 1 {
		t.Errorf("status %d after %d requests, want 403 after 1", r.res.Status, len(api.requests))
	}
}
