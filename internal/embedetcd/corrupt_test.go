package embedetcd_test

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// mustMemberWithData starts a member in a new directory, writes a few
// keys and stops it; it returns the member's configuration.
func mustMemberWithData(t *testing.T) *embedetcd.Config {
	t.Helper()
	cfg := embedetcd.NewConfig(t.TempDir())
	cfg.UnsafeNoFsync = true
	s, err := embedetcd.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"/registry/pods/default/a", "/registry/pods/default/b", "/registry/namespaces/x"} {
		if _, err := s.Client().Put(context.Background(), k, strings.Repeat("v", 3000)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	return cfg
}

func dbPath(cfg *embedetcd.Config) string { return filepath.Join(cfg.Dir, "member", "snap", "db") }

// TestCorruptDatabase: a damaged database is reported as a
// *CorruptError naming the data and the cause, where etcd itself would
// kill the process (SIGBUS when pages lie past the end of a truncated
// file; a panic for pages that are not what they should be).
func TestCorruptDatabase(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"truncated", func(t *testing.T, path string) {
			if err := os.Truncate(path, 8192); err != nil {
				t.Fatal(err)
			}
		}, "truncated"},
		{"shorter than its meta pages", func(t *testing.T, path string) {
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		}, "too few for its two meta pages"},
		{"both meta pages overwritten", func(t *testing.T, path string) {
			overwrite(t, path, 16, 64)
			overwrite(t, path, int64(os.Getpagesize())+16, 64)
		}, "neither meta page"},
		{"root page overwritten", func(t *testing.T, path string) {
			overwrite(t, path, rootPage(t, path)*int64(os.Getpagesize()), 64)
		}, "page "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustMemberWithData(t)
			tt.damage(t, dbPath(cfg))
			s, err := embedetcd.Start(context.Background(), cfg)
			if err == nil {
				s.Close()
				t.Fatal("Start on a damaged database succeeded")
			}
			var ce *embedetcd.CorruptError
			if !errors.As(err, &ce) || ce.Dir != cfg.Dir {
				t.Fatalf("Start = %v, want a *CorruptError for %s", err, cfg.Dir)
			}
			if msg := err.Error(); !strings.Contains(msg, "etcd data in "+cfg.Dir+" is corrupt: ") || !strings.Contains(msg, tt.want) {
				t.Errorf("error %q, want \"etcd data in %s is corrupt: …%s…\"", msg, cfg.Dir, tt.want)
			}
		})
	}
}

// rootPage reads the root page of the tree from the newer meta page
// (bbolt's layout: page header 16 bytes, then magic, version, page size,
// flags, and the root bucket's page at offset 16; the txid at 48).
func rootPage(t *testing.T, path string) int64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps := os.Getpagesize()
	meta := func(off int) (root, txid uint64) {
		m := b[off+16:]
		return binary.LittleEndian.Uint64(m[16:]), binary.LittleEndian.Uint64(m[48:])
	}
	r0, t0 := meta(0)
	r1, t1 := meta(ps)
	if t1 > t0 {
		return int64(r1)
	}
	return int64(r0)
}

// overwrite writes n bytes of 0xAB at off.
func overwrite(t *testing.T, path string, off int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xab", n)), off); err != nil {
		t.Fatal(err)
	}
}

// TestEmptyDatabaseFile: an empty database file (a crash between its
// creation and bbolt's first write) is not corrupt: bbolt starts a new
// database in it and etcd replays its log into it.
func TestEmptyDatabaseFile(t *testing.T) {
	cfg := mustMemberWithData(t)
	if err := os.Truncate(dbPath(cfg), 0); err != nil {
		t.Fatal(err)
	}
	s, err := embedetcd.Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("Start on an empty database file: %v", err)
	}
	defer s.Close()
	got, err := s.Client().Get(context.Background(), "/registry/pods/default/a")
	if err != nil || len(got.Kvs) != 1 {
		t.Errorf("after the log's replay, Get = %v, %v; want the key written before", got, err)
	}
}

// TestCorruptWAL: a damaged write-ahead log is a *CorruptError too.
func TestCorruptWAL(t *testing.T) {
	cfg := mustMemberWithData(t)
	wals, err := filepath.Glob(filepath.Join(cfg.Dir, "member", "wal", "*.wal"))
	if err != nil || len(wals) == 0 {
		t.Fatalf("no WAL file: %v", err)
	}
	overwrite(t, wals[0], 200, 64)
	s, err := embedetcd.Start(context.Background(), cfg)
	if err == nil {
		s.Close()
		t.Fatal("Start on a damaged WAL succeeded")
	}
	var ce *embedetcd.CorruptError
	if !errors.As(err, &ce) {
		t.Fatalf("Start = %v, want a *CorruptError", err)
	}
}

// TestStartHonoursContext: while etcd waits for its database (its file
// locked by another opener), cancelling the context makes Start return
// at once with the context's error.
func TestStartHonoursContext(t *testing.T) {
	cfg := mustMemberWithData(t)
	f, err := os.Open(dbPath(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	// Released when the test ends: the start given up on then finishes
	// and closes its member.
	t.Cleanup(func() { f.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		s, err := embedetcd.Start(ctx, cfg)
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Start returned %v while the database was locked", err)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Start = %v, want context.Canceled", err)
		}
	case <-time.After(waitfor.Bound):
		t.Fatalf("Start did not return within %s of the cancel", waitfor.Bound)
	}
}
