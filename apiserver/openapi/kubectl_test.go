package openapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// fakeAPIServer is just enough of an API server for kubectl: discovery
// built from the same resources, the OpenAPI handler under test, and an
// in-memory store for the pods of namespace default. It records the
// requests it sees.
type fakeAPIServer struct {
	resources []Resource
	openapi   *Handler

	mu       sync.Mutex
	pods     map[string][]byte // name -> JSON
	requests []recordedRequest
}

type recordedRequest struct {
	method, path, query, contentType string
	body                             []byte
}

func newFakeAPIServer(t *testing.T, resources []Resource) *httptest.Server {
	f := &fakeAPIServer{resources: resources, openapi: MustNew(t, resources), pods: map[string][]byte{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return srv
}

// requestsOf returns the requests recorded so far; it is reached through
// the server's handler.
func requestsOf(srv *httptest.Server) []recordedRequest {
	f := srv.Config.Handler.(*fakeAPIServer)
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recordedRequest(nil), f.requests...)
}

func (f *fakeAPIServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.requests = append(f.requests, recordedRequest{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Content-Type"), body})
	f.mu.Unlock()

	const podPrefix = "/api/v1/namespaces/default/pods"
	switch p := r.URL.Path; {
	case p == Path || strings.HasPrefix(p, Path+"/"):
		f.openapi.ServeHTTP(w, r)
	case p == "/api":
		writeJSON(w, 200, metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: r.Host}}})
	case p == "/apis":
		writeJSON(w, 200, f.groups())
	case p == "/version":
		writeJSON(w, 200, map[string]string{"major": "1", "minor": "37", "gitVersion": "v1.37.2"})
	case p == podPrefix+"/web" || p == podPrefix:
		f.servePods(w, r, body)
	default:
		if list, ok := f.resourceList(strings.TrimPrefix(p, "/")); ok {
			writeJSON(w, 200, list)
			return
		}
		notFound(w)
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func (f *fakeAPIServer) groups() metav1.APIGroupList {
	list := metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	seen := map[string]bool{}
	for _, r := range f.resources {
		gv := r.Kind.GroupVersion()
		if gv.Group == "" || seen[gv.String()] {
			continue
		}
		seen[gv.String()] = true
		v := metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: gv.Version}
		list.Groups = append(list.Groups, metav1.APIGroup{Name: gv.Group, Versions: []metav1.GroupVersionForDiscovery{v}, PreferredVersion: v})
	}
	return list
}

// resourceList answers /api/v1 and /apis/<group>/<version>.
func (f *fakeAPIServer) resourceList(key string) (*metav1.APIResourceList, bool) {
	var list *metav1.APIResourceList
	for _, r := range f.resources {
		gv := r.Kind.GroupVersion()
		if strings.TrimPrefix(gvRoot(gv), "/") != key {
			continue
		}
		if list == nil {
			list = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
		}
		list.APIResources = append(list.APIResources, metav1.APIResource{
			Name: r.Plural, SingularName: strings.ToLower(r.Kind.Kind), Namespaced: r.Namespaced, Kind: r.Kind.Kind, Verbs: r.Verbs,
		})
		for _, s := range r.Subresources {
			list.APIResources = append(list.APIResources, metav1.APIResource{
				Name: r.Plural + "/" + s.Name, Namespaced: r.Namespaced, Group: s.Kind.Group, Version: s.Kind.Version, Kind: s.Kind.Kind, Verbs: s.Verbs,
			})
		}
	}
	return list, list != nil
}

// servePods stores pods created with POST and patched with a strategic
// merge patch. On create it adds a sidecar container, as an injecting
// admission webhook would, so that a later apply shows whether lists were
// merged by key or replaced.
func (f *fakeAPIServer) servePods(w http.ResponseWriter, r *http.Request, body []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	stored, exists := f.pods["web"]
	switch {
	case r.Method == http.MethodGet && exists:
		w.Header().Set("Content-Type", "application/json")
		w.Write(stored)
	case r.Method == http.MethodGet:
		writeJSON(w, 404, metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: "Failure",
			Message: `pods "web" not found`, Reason: metav1.StatusReasonNotFound,
			Details: &metav1.StatusDetails{Name: "web", Kind: "pods"}, Code: 404})
	case r.Method == http.MethodPost:
		var pod corev1.Pod
		if err := json.Unmarshal(body, &pod); err != nil {
			writeJSON(w, 400, metav1.Status{Status: "Failure", Message: err.Error(), Code: 400})
			return
		}
		pod.Namespace, pod.ResourceVersion, pod.UID = "default", "1", "uid-1"
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: "proxy", Image: "envoy:1"})
		out, _ := json.Marshal(&pod)
		f.pods[pod.Name] = out
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write(out)
	case r.Method == http.MethodPatch && exists && r.Header.Get("Content-Type") == "application/strategic-merge-patch+json":
		out, err := strategicpatch.StrategicMergePatch(stored, body, &corev1.Pod{})
		if err != nil {
			writeJSON(w, 422, metav1.Status{Status: "Failure", Message: err.Error(), Code: 422})
			return
		}
		f.pods["web"] = out
		w.Header().Set("Content-Type", "application/json")
		w.Write(out)
	default:
		writeJSON(w, 405, metav1.Status{Status: "Failure", Message: "unexpected " + r.Method, Code: 405})
	}
}

// kubectl runs the kubectl on PATH against srv with a private HOME and
// cache, and returns stdout and stderr. It skips the test without kubectl.
func kubectl(t *testing.T, srv *httptest.Server, dir string, args ...string) (string, string, error) {
	t.Helper()
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not on PATH; skipping the real-client test")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--server=" + srv.URL, "--cache-dir=" + filepath.Join(dir, "cache")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "no-kubeconfig"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	return stdout.String(), stderr.String(), err
}

func TestKubectlExplain(t *testing.T) {
	srv := newFakeAPIServer(t, testResources())
	tests := []struct {
		args []string
		want []string // lines, or parts of lines, that must appear
	}{
		{
			args: []string{"explain", "pod.spec.containers", "--recursive=false"},
			want: []string{
				"KIND:       Pod",
				"VERSION:    v1",
				"FIELD: containers <[]Container>",
				corev1.Container{}.SwaggerDoc()[""][:40],
				"name\t<string> -required-",
				"image\t<string>",
				"ports\t<[]ContainerPort>",
				"resources\t<ResourceRequirements>",
				"env\t<[]EnvVar>",
			},
		},
		{
			args: []string{"explain", "pod"},
			want: []string{"KIND:       Pod", "metadata\t<ObjectMeta>", "spec\t<PodSpec>", "status\t<PodStatus>", "apiVersion\t<string>"},
		},
		{
			args: []string{"explain", "pod.metadata.creationTimestamp"},
			want: []string{"FIELD: creationTimestamp <string>"},
		},
		{
			args: []string{"explain", "lease.spec"},
			want: []string{"GROUP:      coordination.k8s.io", "KIND:       Lease", "FIELD: spec <LeaseSpec>", "acquireTime\t<string>", "holderIdentity\t<string>"},
		},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, err := kubectl(t, srv, t.TempDir(), tt.args...)
			if err != nil {
				t.Fatalf("kubectl %v: %v\nstderr: %s\nstdout: %s", tt.args, err, errOut, out)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// TestKubectlApply runs kubectl apply twice with default validation: the
// first run must create with ?fieldValidation=Strict (server-side
// validation found through the document), the second must send a strategic
// merge patch built from the v3 schema, which keeps the injected sidecar.
func TestKubectlApply(t *testing.T) {
	srv := newFakeAPIServer(t, testResources())
	dir := t.TempDir()
	manifest := filepath.Join(dir, "pod.yaml")
	write := func(image string) {
		y := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  namespace: default\nspec:\n  containers:\n  - name: app\n    image: " + image + "\n"
		if err := os.WriteFile(manifest, []byte(y), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	write("nginx:1.25")
	out, errOut, err := kubectl(t, srv, dir, "apply", "-f", manifest)
	if err != nil || !strings.Contains(out, "pod/web created") {
		t.Fatalf("first apply: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	var create *recordedRequest
	for _, r := range requestsOf(srv) {
		if r.method == http.MethodPost {
			create = &r
		}
	}
	if create == nil || !strings.Contains(create.query, "fieldValidation=Strict") {
		t.Fatalf("create request = %+v, want ?fieldValidation=Strict", create)
	}

	write("nginx:1.27")
	out, errOut, err = kubectl(t, srv, dir, "apply", "-f", manifest, "-v=5")
	if err != nil || !strings.Contains(out, "pod/web configured") {
		t.Fatalf("second apply: %v\nstdout: %s\nstderr: %s", err, out, errOut)
	}
	for _, bad := range []string{"OpenAPI V3 path does not", "error calculating patch from openapi"} {
		if strings.Contains(errOut, bad) {
			t.Errorf("kubectl did not use the v3 schema for the patch: %q in\n%s", bad, errOut)
		}
	}
	var patch *recordedRequest
	sawV3 := false
	for _, r := range requestsOf(srv) {
		switch {
		case r.method == http.MethodPatch:
			patch = &r
		case r.path == "/openapi/v2":
			t.Errorf("kubectl fell back to /openapi/v2")
		case r.path == "/openapi/v3/api/v1":
			sawV3 = true
		}
	}
	if !sawV3 {
		t.Errorf("kubectl never fetched /openapi/v3/api/v1")
	}
	if patch == nil {
		t.Fatal("no PATCH request")
	}
	if patch.contentType != "application/strategic-merge-patch+json" || !strings.Contains(patch.query, "fieldValidation=Strict") {
		t.Errorf("patch request: Content-Type %q, query %q; want a strategic merge patch with fieldValidation=Strict", patch.contentType, patch.query)
	}
	if !bytes.Contains(patch.body, []byte(`"$setElementOrder/containers"`)) {
		t.Errorf("patch %s does not merge containers by name", patch.body)
	}

	stored, _, err := kubectl(t, srv, dir, "get", "pod", "web", "-o", "jsonpath={.spec.containers[*].name}={.spec.containers[*].image}")
	if err != nil {
		t.Fatalf("kubectl get: %v", err)
	}
	if want := "app proxy=nginx:1.27 envoy:1"; stored != want {
		t.Errorf("containers after apply = %q, want %q", stored, want)
	}
}

// notFound answers as kube-apiserver answers a path it does not serve
// (the fake API server's 404).
func notFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	w.Write(notFoundBody)
}

// notFoundBody is kube-apiserver's answer to a path it does not serve.
var notFoundBody = func() []byte {
	b, err := json.Marshal(&metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "the server could not find the requested resource",
		Reason:   metav1.StatusReasonNotFound,
		Details:  &metav1.StatusDetails{},
		Code:     http.StatusNotFound,
	})
	if err != nil {
		panic(err)
	}
	return b
}()
