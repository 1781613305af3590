package embedetcd

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestConsistentIndexAsBboltReadsIt: the consistent index checkDB
// returns is what bbolt reads in etcd's database, and the lookup under it
// finds every key of a bucket that spans many pages (branch pages,
// overflow pages) with the value bbolt finds. After a clean stop the write-ahead log holds what
// the database holds.
func TestConsistentIndexAsBboltReadsIt(t *testing.T) {
	cfg := NewConfig(t.TempDir())
	cfg.UnsafeNoFsync = true
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 500 {
		v := strings.Repeat("x", 100+(i%5)*2000)
		if _, err := s.Client().Put(context.Background(), fmt.Sprintf("/registry/pods/ns/pod-%d", i), v); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	path := filepath.Join(cfg.Dir, "member", "snap", "db")
	got, err := checkDB(path)
	if err != nil {
		t.Fatal(err)
	}
	want, keys := readWithBbolt(t, path)
	if got != want || got < 500 {
		t.Errorf("checkDB's consistent index = %d, bbolt reads %d (want at least the 500 puts)", got, want)
	}
	c, err := openForCheck(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.r.(io.Closer).Close()
	root, err := c.meta()
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.page(root)
	if err != nil {
		t.Fatal(err)
	}
	v, isBucket, err := c.lookup(p, 0, []byte("key"))
	if err != nil || !isBucket {
		t.Fatalf("lookup of bucket key = %v, %v", isBucket, err)
	}
	bp, err := c.bucketPage(v, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags := bp[8]; flags != branchPage {
		t.Errorf("bucket key's root page has type %#x, want a branch page (the test must walk branches)", flags)
	}
	for k, want := range keys {
		if got, _, err := c.lookup(bp, 0, []byte(k)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("lookup %x = %d bytes, %v; bbolt reads %d bytes", k, len(got), err, len(want))
		}
	}
	if log, err := readWAL(filepath.Join(cfg.Dir, "member", "wal")); err != nil || log.held != got {
		t.Errorf("readWAL = %+v, %v; want the log to hold entry %d", log, err, got)
	}
}

// readWithBbolt opens the database read-only with bbolt and returns its
// consistent index and the keys and values of its bucket "key".
func readWithBbolt(t *testing.T, path string) (uint64, map[string][]byte) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ci uint64
	keys := map[string][]byte{}
	err = db.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket(metaBucket).Get(consistentIndexKey); len(v) == 8 {
			ci = binary.BigEndian.Uint64(v)
		}
		return tx.Bucket([]byte("key")).ForEach(func(k, v []byte) error {
			keys[string(k)] = bytes.Clone(v)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return ci, keys
}
