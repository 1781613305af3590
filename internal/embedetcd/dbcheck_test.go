package embedetcd

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckDBAcceptsRealDatabases: checkDB passes what etcd writes: a
// tree with branch pages (thousands of keys), overflow pages (values
// larger than a page) and etcd's buckets, after deletes and compaction.
func TestCheckDBAcceptsRealDatabases(t *testing.T) {
	cfg := NewConfig(t.TempDir())
	cfg.UnsafeNoFsync = true
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 3000 {
		v := strings.Repeat("x", 100+(i%7)*3000) // up to ~18 KB
		if _, err := s.Client().Put(ctx, fmt.Sprintf("/registry/pods/ns-%d/pod-%d", i%13, i), v); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if _, err := s.Client().Delete(ctx, fmt.Sprintf("/registry/pods/ns-%d/pod-%d", i%13, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	resp, err := s.Client().Get(ctx, "probe")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Client().Compact(ctx, resp.Header.Revision); err != nil {
		t.Fatal(err)
	}
	s.Close()
	path := filepath.Join(cfg.Dir, "member", "snap", "db")
	if _, err := checkDB(path); err != nil {
		t.Fatalf("checkDB on etcd's own database: %v", err)
	}
	c := checkerOf(t, path)
	if len(c.seen) < 50 {
		t.Errorf("the walk saw %d pages, want the whole tree (hundreds)", len(c.seen))
	}
}

// checkerOf walks path and returns the checker, to see what it visited.
func checkerOf(t *testing.T, path string) *dbChecker {
	t.Helper()
	f, err := openForCheck(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.r.(io.Closer).Close()
	root, err := f.meta()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.tree(root, 0); err != nil {
		t.Fatal(err)
	}
	return f
}
