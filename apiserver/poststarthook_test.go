package apiserver_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/auth"
	"github.com/kubesim/kubesim/apiserver/kubeapiserver"
	"github.com/kubesim/kubesim/apiserver/serverchain"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// newUnstarted builds a server on its own etcd without running it, so a
// test can add hooks first; run starts it and ends it at cleanup, and the
// channel it returns gets Run's error.
func newUnstarted(tb testing.TB) (*apiserver.Server, func() <-chan error) {
	tb.Helper()
	cfg := apiserver.NewConfig(etcdtest.Start(tb).Client())
	cfg.Port = 0
	cfg.Authenticator = auth.NewTokenAuthenticator(testTokens)
	srv, err := serverchain.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	run := func() <-chan error {
		ctx, cancel := context.WithCancel(context.Background())
		done, finished := make(chan error, 1), make(chan struct{})
		go func() {
			defer close(finished)
			done <- srv.Run(ctx)
		}()
		tb.Cleanup(func() {
			cancel()
			<-finished
		})
		return done
	}
	return srv, run
}

// get sends GET path as admin; 403 (the bootstrap roles not yet in force)
// and connection errors are reported as code 0.
func get(tb testing.TB, base, path string) (int, string) {
	tb.Helper()
	req, err := http.NewRequest(http.MethodGet, base+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode == http.StatusForbidden {
		return 0, string(b)
	}
	return resp.StatusCode, string(b)
}

func TestReadinessWaitsForPostStartHooks(t *testing.T) {
	srv, run := newUnstarted(t)
	release := make(chan struct{})
	if err := srv.AddPostStartHook("test-blocking", func(ctx apiserver.PostStartHookContext) error {
		select {
		case <-release:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var steps []string
	srv.OnStartup(func(ev apiserver.StartupEvent) {
		mu.Lock()
		defer mu.Unlock()
		steps = append(steps, string(ev.Step)+" "+ev.Hook)
	})
	run()
	url := srv.URL()
	// Every other check passes (the hooks of the other servers and the
	// built-in ones finish); the test's hook holds readiness.
	waitFor(t, waitTimeout, "every check but the test's", func() bool {
		code, _ := get(t, url, "/readyz?exclude=poststarthook/test-blocking")
		return code == http.StatusOK
	})
	var hookLines, passedLines strings.Builder
	for _, name := range srv.PostStartHooks() {
		if name == "test-blocking" {
			hookLines.WriteString("[-]poststarthook/test-blocking failed: reason withheld\n")
		} else {
			hookLines.WriteString("[+]poststarthook/" + name + " ok\n")
		}
		passedLines.WriteString("[+]poststarthook/" + name + " ok\n")
	}
	for _, name := range []string{"test-blocking", kubeapiserver.HookSystemNamespaces, kubeapiserver.HookBootstrapRoles} {
		if !strings.Contains(passedLines.String(), "poststarthook/"+name+" ") {
			t.Fatalf("hooks %q lack %s", srv.PostStartHooks(), name)
		}
	}
	// As kube-apiserver's: /readyz has the readiness-only checks
	// (etcd-readiness, informer-sync, shutdown), /livez and /healthz not.
	const readyHead = "[+]ping ok\n[+]etcd ok\n[+]etcd-readiness ok\n[+]informer-sync ok\n"
	const liveHead = "[+]ping ok\n[+]etcd ok\n"
	heads := map[string]string{"readyz": readyHead, "livez": liveHead, "healthz": liveHead}
	tests := []struct {
		path     string
		wantCode int
		// The body starts with the head of its endpoint, holds block,
		// ends with tail.
		block, tail string
	}{
		{"/readyz", 500, hookLines.String(), "[+]shutdown ok\nreadyz check failed\n"},
		{"/readyz?verbose", 500, hookLines.String(), "[+]shutdown ok\nreadyz check failed\n"},
		{"/livez?verbose", 500, hookLines.String(), "[+]autoregister-completion ok\nlivez check failed\n"},
		{"/healthz", 500, hookLines.String(), "[+]autoregister-completion ok\nhealthz check failed\n"},
		{"/readyz?verbose&exclude=poststarthook/test-blocking&exclude=nosuch", 200,
			strings.Replace(passedLines.String(), "poststarthook/test-blocking ok", "poststarthook/test-blocking excluded: ok", 1),
			"[+]shutdown ok\nwarn: some health checks cannot be excluded: no matches for \"nosuch\"\nreadyz check passed\n"},
	}
	for _, tt := range tests {
		code, body := get(t, url, tt.path)
		head := heads[strings.Trim(strings.SplitN(tt.path, "?", 2)[0], "/")]
		if code != tt.wantCode || !strings.HasPrefix(body, head) || !strings.Contains(body, tt.block) || !strings.HasSuffix(body, tt.tail) {
			t.Errorf("while held: GET %s = %d %q, want %d, %q first, then %q, ending with %q", tt.path, code, body, tt.wantCode, head, tt.block, tt.tail)
		}
	}
	for _, tt := range []struct {
		path     string
		wantCode int
		wantBody string
	}{
		{"/readyz/poststarthook/test-blocking", 500, "internal server error: not finished\n"},
		{"/readyz/poststarthook/rbac/bootstrap-roles", 200, "ok"},
		{"/readyz/etcd", 200, "ok"},
		{"/readyz?exclude=poststarthook/test-blocking", 200, "ok"},
		// An unknown check is Go's plain 404, as kube-apiserver v1.37.2's.
		{"/readyz/nope", 404, "404 page not found\n"},
		{"/healthz/etcd/x", 404, "404 page not found\n"},
	} {
		if code, body := get(t, url, tt.path); code != tt.wantCode || body != tt.wantBody {
			t.Errorf("while held: GET %s = %d %q, want %d %q", tt.path, code, body, tt.wantCode, tt.wantBody)
		}
	}
	close(release)
	waitFor(t, waitTimeout, "readiness", func() bool {
		code, _ := get(t, url, "/readyz")
		return code == http.StatusOK
	})
	for _, base := range []string{"readyz", "livez", "healthz"} {
		head := heads[base]
		if code, body := get(t, url, "/"+base+"?verbose"); code != 200 || !strings.HasPrefix(body, head+passedLines.String()) || !strings.HasSuffix(body, "\n"+base+" check passed\n") {
			t.Errorf("released: GET /%s?verbose = %d %q, want 200, %q first, ending with %q", base, code, body, head+passedLines.String(), base+" check passed\n")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// The build's steps, reported before OnStartup was called, come first.
	const built = "listener-bound ,server-built ,server-built ,server-built ,"
	if got := strings.Join(steps, ","); !strings.HasPrefix(got, built+"caches-synced ,serving ,") || !strings.HasSuffix(got, "hook-finished test-blocking,ready ") {
		t.Errorf("startup steps = %s, want the listener bound, three servers built, caches-synced, serving, the hooks, test-blocking's end, ready", got)
	}
}

func TestAddPostStartHook(t *testing.T) {
	srv, _ := newUnstarted(t)
	defer srv.Close()
	ok := func(apiserver.PostStartHookContext) error { return nil }
	if err := srv.AddPostStartHook("a", ok); err != nil {
		t.Fatalf("AddPostStartHook(a) = %v", err)
	}
	tests := []struct {
		name    string
		hook    apiserver.PostStartHookFunc
		wantErr string
	}{
		{"b", ok, ""},
		{"a", ok, `unable to add "a" because it was already registered`},
		{"", ok, "missing name"},
		{"c", nil, `hook func may not be nil: "c"`},
	}
	for _, tt := range tests {
		err := srv.AddPostStartHook(tt.name, tt.hook)
		if got := errString(err); got != tt.wantErr {
			t.Errorf("AddPostStartHook(%q) = %q, want %q", tt.name, got, tt.wantErr)
		}
	}
	// The hooks of the other servers come first (added by New).
	if got, want := strings.Join(srv.PostStartHooks(), ","), "a,b"; !strings.HasSuffix(got, ","+want) && got != want {
		t.Errorf("PostStartHooks() = %s, want it to end with %s", got, want)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestFailingPostStartHookStopsTheServer(t *testing.T) {
	tests := []struct {
		name    string
		hook    apiserver.PostStartHookFunc
		wantErr string
	}{
		{"error", func(apiserver.PostStartHookContext) error { return errors.New("no luck") },
			`apiserver: PostStartHook "test-failing" failed: no luck`},
		{"panic", func(apiserver.PostStartHookContext) error { panic("oops") },
			`apiserver: PostStartHook "test-failing" failed: panic: oops`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, run := newUnstarted(t)
			if err := srv.AddPostStartHook("test-failing", tt.hook); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-run():
				if got := errString(err); got != tt.wantErr {
					t.Errorf("Run = %q, want %q", got, tt.wantErr)
				}
			case <-time.After(waitTimeout):
				t.Fatal("Run did not return after its hook failed")
			}
			if err := srv.AddPostStartHook("late", func(apiserver.PostStartHookContext) error { return nil }); err == nil {
				t.Error("AddPostStartHook after Run = nil, want an error")
			}
		})
	}
}
