package cluster

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestComponentLogAppends: the components' log is created readable by
// this user only, and a new start appends to what an earlier one wrote.
func TestComponentLogAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "apiserver.log")
	for _, line := range []string{"first start\n", "second start\n"} {
		w, err := openComponentLog(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(w, line); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "first start\nsecond start\n" {
		t.Errorf("log = %q, want both starts' lines", got)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %v, want 0600", fi.Mode().Perm())
	}
	if _, err := openComponentLog(filepath.Join(path, "not-a-dir", "x.log")); err == nil {
		t.Error("a log that cannot be created: no error at open")
	}
}
