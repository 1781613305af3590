package main

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/etcdtest"
	"github.com/kubesim/kubesim/internal/waitfor"
)

// TestDamagedWALIsReported: a damaged etcd write-ahead log is an error
// message naming the file and exit code 1, within the exit deadline, and
// the failed start writes nothing into the data dir (its logs aside).
// Before, an empty log file made etcd panic (exit 2); a missing log made
// kubesim wait 30 s for etcd, which had written a new log beside the
// data (the next start panicked); a log cut short made etcd repair it by
// cutting it shorter, then wait 30 s, on every start; so did a log left
// without entries by a kill during the first start.
func TestDamagedWALIsReported(t *testing.T) {
	tests := []struct {
		name string
		// damage damages the log in walDir and returns what the error
		// must say after "is corrupt: ".
		damage func(t *testing.T, walDir string) string
	}{
		{"empty file", func(t *testing.T, walDir string) string {
			f := etcdtest.LastWALFile(t, walDir)
			truncateFile(t, f, 0)
			return "the write-ahead log file " + f + " is empty"
		}},
		{"files deleted", func(t *testing.T, walDir string) string {
			if err := os.Remove(etcdtest.LastWALFile(t, walDir)); err != nil {
				t.Fatal(err)
			}
			return "the write-ahead log is missing (no .wal file in " + walDir + ")"
		}},
		{"directory deleted", func(t *testing.T, walDir string) string {
			if err := os.RemoveAll(walDir); err != nil {
				t.Fatal(err)
			}
			return "the write-ahead log is missing (no directory " + walDir + ")"
		}},
		{"cut in the middle of a record", func(t *testing.T, walDir string) string {
			f := etcdtest.LastWALFile(t, walDir)
			recs := etcdtest.WALRecords(t, f)
			r := recs[len(recs)/2]
			truncateFile(t, f, r.Start+(r.End-r.Start)/2)
			return "the write-ahead log file " + f + " ends at entry "
		}},
		{"first start cut short", func(t *testing.T, walDir string) string {
			// What a kill just after etcd created the log on the first
			// start leaves: the log's first three records (a checksum,
			// the member's identity, an empty snapshot), no entry, and
			// a database without an applied entry.
			f := etcdtest.LastWALFile(t, walDir)
			truncateFile(t, f, etcdtest.WALRecords(t, f)[2].End)
			truncateFile(t, filepath.Join(walDir, "..", "snap", "db"), 0)
			return "the write-ahead log file " + f + " holds no entries"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			serveAndStop(t, dir)
			want := "kubesim: etcd data in " + dir + " is corrupt: " + tt.damage(t, filepath.Join(dir, "etcd", "member", "wal"))
			before := dataDirListing(t, dir)
			start := time.Now()
			p := startKubesim(t, nil, serveArgs(dir)...)
			code := p.wait(exitDeadline)
			t.Logf("exit %d after %s; stderr: %s", code, time.Since(start).Round(time.Millisecond), p.stderr.String())
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			if got := p.stderr.String(); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", got, want)
			}
			if after := dataDirListing(t, dir); after != before {
				t.Errorf("the failed start changed the data dir:\nbefore:\n%s\nafter:\n%s", before, after)
			}
		})
	}
}

// TestTornWALTailIsRepaired: a record cut short at the very end of the
// log, as a crash in the middle of a write leaves it, is no damage:
// etcd cuts it off and kubesim starts on the data.
func TestTornWALTailIsRepaired(t *testing.T) {
	dir := t.TempDir()
	serveAndStop(t, dir)
	f := etcdtest.LastWALFile(t, filepath.Join(dir, "etcd", "member", "wal"))
	recs := etcdtest.WALRecords(t, f)
	// A header and the first bytes of a record of 1500 bytes; the rest
	// of it is the preallocated zeros.
	torn := append(binary.LittleEndian.AppendUint64(nil, 1500), strings.Repeat("\x11", 300)...)
	w, err := os.OpenFile(f, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.WriteAt(torn, recs[len(recs)-1].End)
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitfor.Bound)
	if _, err := os.Stat(f + ".broken"); err != nil {
		t.Errorf("etcd did not repair the log (it keeps the torn file as %s.broken): %v", filepath.Base(f), err)
	}
	p.signal(syscall.SIGINT)
	if code := p.wait(exitDeadline); code != 0 {
		t.Errorf("exit code %d after SIGINT, want 0; stderr: %s", code, p.stderr.String())
	}
}

// serveAndStop runs kubesim serve on dir until it is up, then stops it
// with Ctrl-C: a data dir with a member that holds data.
func serveAndStop(t *testing.T, dir string) {
	t.Helper()
	p := startKubesim(t, nil, serveArgs(dir)...)
	p.waitLine(readyLine, waitfor.Bound)
	p.signal(syscall.SIGINT)
	if code := p.wait(exitDeadline); code != 0 {
		t.Fatalf("exit code %d after SIGINT, want 0; stderr: %s", code, p.stderr.String())
	}
}

func truncateFile(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.Truncate(path, size); err != nil {
		t.Fatal(err)
	}
}

// dataDirListing lists every file and directory under dir but its logs
// dir, with the type, and the size of write-ahead log files.
func dataDirListing(t *testing.T, dir string) string {
	t.Helper()
	return etcdtest.Listing(t, dir, func(path string) bool { return strings.HasSuffix(path, ".wal") }, "logs")
}
