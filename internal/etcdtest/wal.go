package etcdtest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
)

// WALRecord is where one record of a write-ahead log file lies: from
// byte Start to byte End.
type WALRecord struct{ Start, End int64 }

// WALRecords lists the records of the write-ahead log file at path, read
// with etcd's decoder, up to the zeroes etcd preallocates after them.
func WALRecords(tb testing.TB, path string) []WALRecord {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	dec := wal.NewDecoder(fileutil.NewFileReader(f))
	var out []WALRecord
	rec := &walpb.Record{}
	for {
		start := dec.LastOffset()
		if err := dec.Decode(rec); errors.Is(err, io.EOF) {
			return out
		} else if err != nil {
			tb.Fatalf("%s after %d records: %v", path, len(out), err)
		}
		out = append(out, WALRecord{start, dec.LastOffset()})
		if rec.GetType() == wal.CrcType {
			dec.UpdateCRC(rec.GetCrc())
		}
	}
}

// WALFiles lists the write-ahead log files in walDir, in order; it fails
// the test if there is none.
func WALFiles(tb testing.TB, walDir string) []string {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(walDir, "*.wal"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no write-ahead log file in %s: %v", walDir, err)
	}
	return files
}

// LastWALFile is the last of WALFiles.
func LastWALFile(tb testing.TB, walDir string) string {
	tb.Helper()
	files := WALFiles(tb, walDir)
	return files[len(files)-1]
}

// Listing is every file and directory under dir, one a line, with its
// type and, for the files sized says, its size: what a start that writes
// nothing leaves unchanged. The directories named in skip (relative to
// dir) are left out.
func Listing(tb testing.TB, dir string, sized func(path string) bool, skip ...string) string {
	tb.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() && slices.Contains(skip, rel) {
			return filepath.SkipDir
		}
		fmt.Fprintf(&b, "%s %v", rel, d.Type())
		if d.Type().IsRegular() && sized(path) {
			info, err := d.Info()
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, " %d", info.Size())
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return b.String()
}
