//go:build unix

package scenarios_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/waitfor"
	"github.com/kubesim/kubesim/scenarios"
)

// podManifest is a valid manifest of one pod.
const podManifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n"

// parseWithApplyFile parses a scenario in dir whose one step applies
// name; the applyFile key is at line 6, column 16.
func parseWithApplyFile(dir, name string) error {
	src := header + "steps:\n" + step + "    applyFile: " + name + "\n"
	_, err := scenarios.Parse(filepath.Join(dir, "s.yaml"), []byte(src))
	return err
}

// parseReturns runs parse in the background and fails the test if it has
// not returned by the deadline (it then unblocks a reader of fifo, so the
// test ends instead of hanging).
func parseReturns(t *testing.T, fifo string, parse func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- parse() }()
	select {
	case err := <-done:
		return err
	case <-time.After(waitfor.Bound):
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Close()
		}
		<-done
		t.Fatalf("Parse opened or read the FIFO %s (it blocked until a writer came)", fifo)
		return nil
	}
}

func TestApplyFileStaysInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pod.yaml"), []byte(podManifest), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("pod.yaml", filepath.Join(dir, "alias.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := ": outside " + dir + ", the scenario's directory (an applyFile is read relative to the scenario file and must stay in its directory)"
	for _, tc := range []struct{ name, file, want string }{
		{"absolute path outside", "/etc/passwd", "/etc/passwd" + outside},
		{"a device outside", "/dev/zero", "/dev/zero" + outside},
		{"dot-dot escape", "../x/pod.yaml", "../x/pod.yaml" + outside},
		{"dot-dot through a subdirectory", "sub/../../pod.yaml", "sub/../../pod.yaml" + outside},
		{"symlink pointing outside", "passwd.yaml", "passwd.yaml" + outside},
		{"a directory", "sub", filepath.Join(dir, "sub") + ": not a regular file (a directory)"},
		{"missing", "nope.yaml", filepath.Join(dir, "nope.yaml") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := parseWithApplyFile(dir, tc.file)
			want := filepath.Join(dir, "s.yaml") + ":6:16: applyFile: " + tc.want
			if err == nil || err.Error() != want {
				t.Errorf("error\n got %v\nwant %s", err, want)
			}
			if err != nil && strings.Contains(err.Error(), "root:") {
				t.Errorf("the error quotes /etc/passwd: %v", err)
			}
		})
	}
	for _, ok := range []string{"pod.yaml", "alias.yaml", "sub/../pod.yaml", filepath.Join(dir, "pod.yaml")} {
		if err := parseWithApplyFile(dir, ok); err != nil {
			t.Errorf("applyFile %s: %v, want it read", ok, err)
		}
	}
}

// TestApplyFileFIFONotRead: a named pipe in the scenario's directory is
// refused without being opened: a read of a FIFO nobody writes to would
// block.
func TestApplyFileFIFONotRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	err := parseReturns(t, fifo, func() error { return parseWithApplyFile(dir, "pipe.yaml") })
	want := filepath.Join(dir, "s.yaml") + ":6:16: applyFile: " + fifo + ": not a regular file (a named pipe)"
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	err = parseReturns(t, fifo, func() error { _, err := scenarios.Load(fifo); return err })
	if err == nil || !strings.Contains(err.Error(), "not a regular file (a named pipe)") {
		t.Errorf("Load(FIFO) = %v, want it refused as a named pipe", err)
	}
}

func TestLoadRefusesDevices(t *testing.T) {
	_, err := scenarios.Load("/dev/zero")
	if want := "scenario: /dev/zero: not a regular file (a character device)"; err == nil || err.Error() != want {
		t.Errorf("Load(/dev/zero) = %v, want %s", err, want)
	}
}

func TestFileSizeLimit(t *testing.T) {
	dir := t.TempDir()
	// Exactly the limit: a manifest padded with a comment.
	exact := podManifest + "#" + strings.Repeat("x", scenarios.MaxFileSize-len(podManifest)-2) + "\n"
	if err := os.WriteFile(filepath.Join(dir, "exact.yaml"), []byte(exact), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.yaml"), []byte(exact+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := parseWithApplyFile(dir, "exact.yaml"); err != nil {
		t.Errorf("a manifest of exactly %d bytes: %v, want it read", scenarios.MaxFileSize, err)
	}
	err := parseWithApplyFile(dir, "big.yaml")
	want := filepath.Join(dir, "s.yaml") + ":6:16: applyFile: " + filepath.Join(dir, "big.yaml") + ": larger than 1024 KiB (1 MiB), the most kubesim reads"
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	if _, err := scenarios.Load(filepath.Join(dir, "big.yaml")); err == nil || !strings.Contains(err.Error(), "larger than 1024 KiB") {
		t.Errorf("Load(big) = %v, want it refused as too large", err)
	}
}

// TestApplyFileErrorsQuoteNothing: a file that is not a manifest, or not
// YAML, gets an error that says where, never what it holds.
func TestApplyFileErrorsQuoteNothing(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"passwd-like", "root:x:0:0:hunter2:/root:/bin/sh\nbin:x:1:1:hunter2:/bin:/bin/false\n", "1:1: manifest: expected an object (a mapping), got a string"},
		{"bad yaml", "apiVersion: v1\nkind: [hunter2\n", "1:1: manifest: invalid YAML"},
		{"unknown anchor", "a: *hunter2\n", "1:1: manifest: invalid YAML"},
		{"no kind", "password: hunter2\n", "1:1: manifest: no kind (supported: " + strings.Join(scenarios.KindNames, ", ") + ")"},
		{"not a kind", "kind: hunter2\n", "1:1: manifest: unsupported kind (supported: Pod,"},
		{"wrong apiVersion", "apiVersion: hunter2\nkind: Pod\n", "1:1: manifest: Pod is apiVersion v1, not"},
		{"bad name", "apiVersion: v1\nkind: Pod\nmetadata: {name: Hunter2}\n", "3:12: manifest: metadata.name is not a valid object name: a lowercase RFC 1123 subdomain"},
		{"bad time", "apiVersion: v1\nkind: Pod\nmetadata: {name: web, creationTimestamp: hunter2}\n", "1:1: manifest: a value here does not decode as its field's type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			err := parseWithApplyFile(dir, filepath.Base(file))
			var fe *scenarios.FileError
			if !errors.As(err, &fe) {
				t.Fatalf("Parse = %v, want a *FileError", err)
			}
			if want := file + ":" + tc.want; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("error\n got %v\nwant %s…", err, want)
			}
			if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "root:x") {
				t.Errorf("the error quotes the file: %v", err)
			}
		})
	}
}
