package embedetcd_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/storage/wal"

	"github.com/kubesim/kubesim/internal/embedetcd"
	"github.com/kubesim/kubesim/internal/etcdtest"
)

// allFiles sizes every file of a listing.
func allFiles(string) bool { return true }

// TestDamagedWAL: a write-ahead log that is missing, empty, unreadable
// or cut short of what the database holds is a *CorruptError that names
// the file, returned before etcd opens anything: the data dir is left
// exactly as it was. etcd itself panics on an empty file, and on a
// missing or cut log starts a new log beside the data and never becomes
// ready.
func TestDamagedWAL(t *testing.T) {
	tests := []struct {
		name string
		// damage damages the log of the member in walDir; it returns the
		// path the error must name and the words it must say.
		damage func(t *testing.T, walDir string) (path, want string)
	}{
		{"empty file", func(t *testing.T, walDir string) (string, string) {
			f := etcdtest.LastWALFile(t, walDir)
			mustTruncate(t, f, 0)
			return f, " is empty"
		}},
		{"files deleted", func(t *testing.T, walDir string) (string, string) {
			for _, f := range etcdtest.WALFiles(t, walDir) {
				if err := os.Remove(f); err != nil {
					t.Fatal(err)
				}
			}
			return walDir, "the write-ahead log is missing (no .wal file in " + walDir + ")"
		}},
		{"directory deleted", func(t *testing.T, walDir string) (string, string) {
			if err := os.RemoveAll(walDir); err != nil {
				t.Fatal(err)
			}
			return walDir, "the write-ahead log is missing (no directory " + walDir + ")"
		}},
		{"cut in the middle of a record", func(t *testing.T, walDir string) (string, string) {
			f := etcdtest.LastWALFile(t, walDir)
			r := recordAtHalf(t, f)
			mustTruncate(t, f, r.Start+(r.End-r.Start)/2)
			return f, " ends at entry "
		}},
		{"cut at the end of a record", func(t *testing.T, walDir string) (string, string) {
			f := etcdtest.LastWALFile(t, walDir)
			mustTruncate(t, f, recordAtHalf(t, f).End)
			return f, " ends at entry "
		}},
		{"header zeroed", func(t *testing.T, walDir string) (string, string) {
			f := etcdtest.LastWALFile(t, walDir)
			writeAt(t, f, 0, make([]byte, 8)) // the first record's length: 0 means the end
			return f, " holds no records"
		}},
		{"first start cut short", func(t *testing.T, walDir string) (string, string) {
			// What a kill during the first start leaves: a log holding
			// only what etcd writes when it creates it (a checksum, the
			// member's identity, an empty snapshot), and a database
			// without an applied entry.
			f := etcdtest.LastWALFile(t, walDir)
			mustTruncate(t, f, etcdtest.WALRecords(t, f)[2].End)
			mustTruncate(t, filepath.Join(walDir, "..", "snap", "db"), 0)
			return f, " holds no entries"
		}},
		{"record overwritten", func(t *testing.T, walDir string) (string, string) {
			f := etcdtest.LastWALFile(t, walDir)
			r := recordAtHalf(t, f)
			writeAt(t, f, r.Start+8, []byte(strings.Repeat("\xab", int(r.End-r.Start-8))))
			return f, " is damaged after byte "
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustMemberWithData(t)
			path, want := tt.damage(t, filepath.Join(cfg.Dir, "member", "wal"))
			mustFailAsCorrupt(t, cfg, path, want)
		})
	}
}

// mustFailAsCorrupt starts the member of cfg, whose data is damaged, and
// checks that Start fails with a *CorruptError, one line naming path and
// saying want, and leaves the data dir as it was.
func mustFailAsCorrupt(t *testing.T, cfg *embedetcd.Config, path, want string) {
	t.Helper()
	before := etcdtest.Listing(t, cfg.Dir, allFiles)
	s, err := embedetcd.Start(context.Background(), cfg)
	if err == nil {
		s.Close()
		t.Fatal("Start on a damaged write-ahead log succeeded")
	}
	var ce *embedetcd.CorruptError
	if !errors.As(err, &ce) || ce.Dir != cfg.Dir {
		t.Fatalf("Start = %v, want a *CorruptError for %s", err, cfg.Dir)
	}
	msg := err.Error()
	t.Logf("%s", msg)
	if !strings.HasPrefix(msg, "etcd data in "+cfg.Dir+" is corrupt: ") || !strings.Contains(msg, path) ||
		!strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("error %q, want one line \"etcd data in %s is corrupt: …\" naming %s and saying %q", msg, cfg.Dir, path, want)
	}
	if after := etcdtest.Listing(t, cfg.Dir, allFiles); after != before {
		t.Errorf("the failed start changed the data dir:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestTornWALTailIsRepaired: a record cut short at the end of the log,
// as a crash in the middle of a write leaves it, is not damage: etcd
// cuts it off (wal.Repair) and starts with every key written before.
func TestTornWALTailIsRepaired(t *testing.T) {
	tests := []struct {
		name  string
		write func(t *testing.T, path string, end int64)
	}{
		{"in the preallocated file", func(t *testing.T, path string, end int64) {
			// A header and the first bytes of a record; the rest of
			// its sectors still hold the preallocated zeros.
			writeAt(t, path, end, tornRecord())
		}},
		{"at the end of the file", func(t *testing.T, path string, end int64) {
			// A file that was not preallocated (etcd's repair shortened
			// it before): it ends inside the record being written.
			writeAt(t, path, end, tornRecord())
			mustTruncate(t, path, end+int64(len(tornRecord())))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustMemberWithData(t)
			f := etcdtest.LastWALFile(t, filepath.Join(cfg.Dir, "member", "wal"))
			recs := etcdtest.WALRecords(t, f)
			tt.write(t, f, recs[len(recs)-1].End)
			s, err := embedetcd.Start(context.Background(), cfg)
			if err != nil {
				t.Fatalf("Start on a log with a torn tail: %v", err)
			}
			defer s.Close()
			if _, err := os.Stat(f + ".broken"); err != nil {
				t.Errorf("etcd did not repair the log (it keeps the torn file as %s.broken): %v", filepath.Base(f), err)
			}
			got, err := s.Client().Get(context.Background(), "/registry/", clientv3.WithPrefix())
			if err != nil || len(got.Kvs) != 3 {
				t.Errorf("after the repair, Get = %v, %v; want the 3 keys written before", got, err)
			}
		})
	}
}

// tornRecord is the start of a record of 1500 bytes: its header and its
// first 300 bytes.
func tornRecord() []byte {
	b := binary.LittleEndian.AppendUint64(nil, 1500)
	return append(b, strings.Repeat("\x11", 300)...)
}

// recordAtHalf is the first record of the file at path that begins in
// the second half of its data and holds more than a few bytes.
func recordAtHalf(t *testing.T, path string) etcdtest.WALRecord {
	t.Helper()
	recs := etcdtest.WALRecords(t, path)
	end := recs[len(recs)-1].End
	for _, r := range recs {
		if r.Start >= end/2 && r.End-r.Start > 16 {
			return r
		}
	}
	t.Fatalf("%s: no record in the second half of its %d bytes of records", path, end)
	return etcdtest.WALRecord{}
}

func mustTruncate(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

func writeAt(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// TestWALOfManyFiles: a log of several files (etcd starts a new one when
// the last is full) passes the check and the member restarts on it; a
// file missing among them, a file before the last one cut short, or the
// first file missing is damage, named.
func TestWALOfManyFiles(t *testing.T) {
	defer func(size int64) { wal.SegmentSizeBytes = size }(wal.SegmentSizeBytes)
	wal.SegmentSizeBytes = 32 << 10 // a new file every 32 KiB
	tests := []struct {
		name   string
		damage func(t *testing.T, files []string) (path, want string)
	}{
		{"none", func(t *testing.T, files []string) (string, string) { return "", "" }},
		{"a file missing", func(t *testing.T, files []string) (string, string) {
			if err := os.Remove(files[1]); err != nil {
				t.Fatal(err)
			}
			return files[2], " follows " + files[0]
		}},
		{"a file cut short", func(t *testing.T, files []string) (string, string) {
			r := recordAtHalf(t, files[1])
			mustTruncate(t, files[1], r.Start+(r.End-r.Start)/2)
			return files[1], " ends in the middle of a record"
		}},
		{"the first file missing", func(t *testing.T, files []string) (string, string) {
			if err := os.Remove(files[0]); err != nil {
				t.Fatal(err)
			}
			return files[1], "the write-ahead log's first file is missing: its oldest file " + files[1]
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustMemberWithData(t)
			s, err := embedetcd.Start(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i := range 30 {
				if _, err := s.Client().Put(context.Background(), fmt.Sprintf("/registry/pods/default/p%d", i), strings.Repeat("v", 3000)); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			files := etcdtest.WALFiles(t, filepath.Join(cfg.Dir, "member", "wal"))
			if len(files) < 3 {
				t.Fatalf("%d log files, want several", len(files))
			}
			path, want := tt.damage(t, files)
			if want != "" {
				mustFailAsCorrupt(t, cfg, path, want)
				return
			}
			if s, err = embedetcd.Start(context.Background(), cfg); err != nil {
				t.Fatalf("Start on a log of %d files: %v", len(files), err)
			}
			s.Close()
		})
	}
}
