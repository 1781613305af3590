package embedetcd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.etcd.io/etcd/client/pkg/v3/fileutil"
	"go.etcd.io/etcd/server/v3/storage/wal"
	"go.etcd.io/etcd/server/v3/storage/wal/walpb"
	"go.etcd.io/raft/v3/raftpb"
	"google.golang.org/protobuf/proto"
)

// checkMemberData checks the data of the member in dir (Config.Dir or
// MemberConfig.Dir) before etcd opens it, with plain reads, writing
// nothing: the database (checkDB), then the write-ahead log (readWAL)
// against it. Who may call: Start and StartMember, before etcd runs.
//
// A log that is missing, or ends before the last entry the database
// holds, lost entries: etcd writes an entry to its log before it applies
// it (a follower may apply one while writing it; a kill in that instant
// would be reported too). etcd would start on it, or beside it on a new
// log, and never become ready: a member alone gets indexes for its first
// proposals that its database says are applied, so they are skipped and
// never complete; a member of a cluster panics when the leader says
// entries past its log's end are committed.
//
// alone says the member is the only one of its cluster (Start). Its log
// must then hold an entry: its first start writes the member into it. A
// log without one (that start killed just after it created the log)
// leaves the member no voter to elect, and every later start waits
// forever. A member of a cluster may have none yet: the leader sends it.
//
// The error says what is wrong in plain words, on one line, naming the
// file.
func checkMemberData(dir string, alone bool) error {
	// The database first: a log read after it holds at least what it
	// held then, even if something appends to both meanwhile.
	applied, err := checkDB(filepath.Join(dir, "member", "snap", "db"))
	if err != nil {
		return err
	}
	walDir := filepath.Join(dir, "member", "wal")
	log, err := readWAL(walDir)
	switch {
	case err != nil:
		return err
	case log == nil && applied > 0:
		if _, err := os.Stat(walDir); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("the write-ahead log is missing (no directory %s), but the database holds entries up to %d", walDir, applied)
		}
		return fmt.Errorf("the write-ahead log is missing (no .wal file in %s), but the database holds entries up to %d", walDir, applied)
	case log != nil && log.held < applied:
		return fmt.Errorf("the write-ahead log file %s ends at entry %d, but the database already holds entries up to %d (the end of the log is missing)", log.lastFile, log.held, applied)
	case log != nil && alone && log.held == 0:
		return fmt.Errorf("the write-ahead log file %s holds no entries: the first start on this data was cut short before etcd wrote the member into it, and etcd cannot start without that", log.lastFile)
	}
	return nil
}

// walSummary is what readWAL learned of a write-ahead log.
type walSummary struct {
	// held is the index of the last entry the log holds, or of its
	// latest snapshot if that is later.
	held uint64
	// lastFile is the path of the log's last file.
	lastFile string
}

// walFile is one file of a write-ahead log, named
// <seq>-<index of its first entry>.wal in hex.
type walFile struct {
	path       string
	seq, index uint64
}

// readWAL reads the write-ahead log in dir as etcd reads it when it
// starts (etcdserver's bootstrap: wal.ValidSnapshotEntries, wal.Open,
// ReadAll, wal.Repair), without opening a file for writing. It returns
// nil and no error when dir holds no log. Every record of every file
// must read, with one exception etcd repairs on purpose: a record cut
// short at the end of the last file (a crash in the middle of a write),
// which etcd cuts off; held then counts the records before it.
//
// etcd's own readers in read mode (wal.OpenForRead with ReadAll,
// wal.Verify) cannot tell these apart: they stop without an error at a
// record cut short in any file, which etcd then fails to repair. So
// readWAL runs etcd's decoder (wal.NewDecoder: framing, checksums, torn
// writes) on each file and does what ReadAll does with the records.
func readWAL(dir string) (*walSummary, error) {
	files, err := walFiles(dir)
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var r walReader
	for i, f := range files {
		if err := r.readFile(f.path, i == len(files)-1); err != nil {
			return nil, err
		}
	}
	if r.metadata == nil {
		return nil, fmt.Errorf("the write-ahead log in %s has no metadata record (the member's identity)", dir)
	}
	// etcd starts from the latest snapshot the log says is committed,
	// reading from the last file that begins at or before it.
	snap := r.latestSnapshot()
	switch {
	case files[0].index > snap && snap == 0:
		return nil, fmt.Errorf("the write-ahead log's first file is missing: its oldest file %s begins at entry %d, and the log has no snapshot to start from", files[0].path, files[0].index)
	case files[0].index > snap:
		return nil, fmt.Errorf("the write-ahead log's first files are missing: its oldest file %s begins at entry %d, after its latest snapshot (entry %d)", files[0].path, files[0].index, snap)
	}
	return &walSummary{held: max(r.lastIndex, snap), lastFile: files[len(files)-1].path}, nil
}

// walFiles lists the log's files in dir in order, as etcd does (other
// names are ignored), and checks that none is empty and that their
// sequence numbers have no gap. A missing dir is no file.
func walFiles(dir string) ([]walFile, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the write-ahead log: %w", err)
	}
	var files []walFile
	for _, e := range entries {
		f := walFile{path: filepath.Join(dir, e.Name())}
		if !strings.HasSuffix(e.Name(), ".wal") {
			continue
		}
		if _, err := fmt.Sscanf(e.Name(), "%016x-%016x.wal", &f.seq, &f.index); err != nil {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("read the write-ahead log: %w", err)
		}
		if info.Size() == 0 {
			return nil, fmt.Errorf("the write-ahead log file %s is empty", f.path)
		}
		if n := len(files); n > 0 && f.seq != files[n-1].seq+1 {
			return nil, fmt.Errorf("a write-ahead log file is missing: %s follows %s", f.path, files[n-1].path)
		}
		files = append(files, f)
	}
	return files, nil
}

// walReader holds what the records read so far say.
type walReader struct {
	crc       uint32 // the running checksum at the end of the last file read
	metadata  []byte
	lastIndex uint64   // of the last entry record
	commit    uint64   // of the last hard state record
	snapshots []uint64 // the indexes of the snapshot records
}

// errChecksum is a record whose checksum does not match its data.
var errChecksum = fmt.Errorf("a record's checksum does not match (%w)", wal.ErrCRCMismatch)

// readFile reads the records of the log file at path; last says it is
// the log's last file, where a record cut short ends the log.
func (r *walReader) readFile(path string, last bool) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read the write-ahead log: %w", err)
	}
	defer f.Close()
	dec := wal.NewDecoder(fileutil.NewFileReader(f))
	dec.UpdateCRC(r.crc) // as if the files were one stream, as etcd reads them
	rec := &walpb.Record{}
	n := 0
	for ; ; n++ {
		err := dec.Decode(rec)
		if err == nil {
			err = r.record(rec, dec)
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF) && last && n > 0:
			// The end, or a torn write at the end that etcd cuts off.
		case errors.Is(err, io.ErrUnexpectedEOF):
			return fmt.Errorf("the write-ahead log file %s ends in the middle of a record (after byte %d)", path, dec.LastOffset())
		case errors.Is(err, wal.ErrCRCMismatch):
			return fmt.Errorf("the write-ahead log file %s is damaged after byte %d: %w", path, dec.LastOffset(), errChecksum)
		default:
			return fmt.Errorf("the write-ahead log file %s is damaged after byte %d: a record cannot be read (%w)", path, dec.LastOffset(), err)
		}
		break
	}
	if n == 0 {
		return fmt.Errorf("the write-ahead log file %s holds no records", path)
	}
	r.crc = dec.LastCRC()
	return nil
}

// record takes in one record, as wal's ReadAll does.
func (r *walReader) record(rec *walpb.Record, dec wal.Decoder) error {
	switch rec.GetType() {
	case wal.CrcType:
		// A file begins with the checksum of everything before it.
		if c := dec.LastCRC(); c != 0 && rec.Validate(c) != nil {
			return errChecksum
		}
		dec.UpdateCRC(rec.GetCrc())
	case wal.MetadataType:
		if r.metadata != nil && !bytes.Equal(r.metadata, rec.Data) {
			return fmt.Errorf("its metadata differs from the earlier files' (%w)", wal.ErrMetadataConflict)
		}
		r.metadata = rec.Data
	case wal.EntryType:
		var e raftpb.Entry
		if err := proto.Unmarshal(rec.Data, &e); err != nil {
			return fmt.Errorf("an entry cannot be decoded: %w", err)
		}
		r.lastIndex = e.GetIndex() // a later entry replaces those from its index on
	case wal.StateType:
		var st raftpb.HardState
		if err := proto.Unmarshal(rec.Data, &st); err != nil {
			return fmt.Errorf("a hard state cannot be decoded: %w", err)
		}
		r.commit = st.GetCommit()
	case wal.SnapshotType:
		var s walpb.Snapshot
		if err := proto.Unmarshal(rec.Data, &s); err != nil {
			return fmt.Errorf("a snapshot record cannot be decoded: %w", err)
		}
		r.snapshots = append(r.snapshots, s.GetIndex())
	default:
		return fmt.Errorf("a record of unknown type %d", rec.GetType())
	}
	return nil
}

// latestSnapshot is the index of the snapshot etcd starts from: the
// last one not after the last committed index (wal.ValidSnapshotEntries),
// 0 for none.
func (r *walReader) latestSnapshot() uint64 {
	var latest uint64
	for _, s := range r.snapshots {
		if s <= r.commit {
			latest = s
		}
	}
	return latest
}
