package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCatalogueLookup(t *testing.T) {
	cat := DefaultCatalogue()
	for _, tt := range []struct {
		ref  string
		want pullResult
	}{
		{"nginx", pullFound},
		{"nginx:1.27", pullFound},
		{"docker.io/library/nginx:1.27-alpine", pullFound},
		{"nginx:2.0", pullNoTag},
		{"nginx:latst", pullNoTag},
		{"nginx:does-not-exist", pullNoTag},
		{"ngnix:latst", pullNoAccess},
		{"busybox:1.36", pullFound},
		{"mysql:8.0", pullFound},
		{"registry.k8s.io/pause:3.10", pullFound},
		{"registry.k8s.io/kube-scheduler:v1.37.2", pullFound},
		{"registry.k8s.io/etcd:3.6.5-0", pullFound},
		{"nginx@sha256:0000000000000000000000000000000000000000000000000000000000000000", pullFound},
		{"example.com/team/app:v1", pullNoAccess},
	} {
		if got := cat.lookup(parseImage(tt.ref)); got != tt.want {
			t.Errorf("lookup(%s) = %v, want %v", tt.ref, got, tt.want)
		}
	}
}

func TestLoadCatalogue(t *testing.T) {
	name := filepath.Join(t.TempDir(), "images.txt")
	text := "# mine\nexample.com/team/app v1 v2\nnginx 1.27\nbusybox -\n"
	if err := os.WriteFile(name, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cat, err := LoadCatalogue(name)
	if err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]pullResult{
		"example.com/team/app:v2": pullFound, "nginx:1.27": pullFound, "nginx:1.26": pullNoTag,
		"busybox": pullNoAccess, "redis:7": pullFound,
	} {
		if got := cat.lookup(parseImage(ref)); got != want {
			t.Errorf("lookup(%s) = %v, want %v", ref, got, want)
		}
	}
	if err := os.WriteFile(name, []byte("nginx\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCatalogue(name); err == nil || !strings.Contains(err.Error(), "images.txt:1: repository nginx has no tags") {
		t.Errorf("LoadCatalogue of a line without tags: %v", err)
	}
}

func TestPullErrorWording(t *testing.T) {
	got := pullError(parseImage("ngnix:latst"), pullNoAccess)
	want := `rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/library/ngnix:latst": failed to resolve reference "docker.io/library/ngnix:latst": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed`
	if got != want {
		t.Errorf("pullError:\n got %s\nwant %s", got, want)
	}
}
