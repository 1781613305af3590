package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/kubesim/kubesim/internal/pki"
)

// LockFile is the file in a data dir that a running cluster holds locked
// (flock), with its process id inside.
const LockFile = "kubesim.lock"

// DataDirInUseError says that another cluster holds the data dir.
type DataDirInUseError struct {
	Dir string
	// PID is the process holding it (0 if its lock file names none).
	PID int
}

func (e *DataDirInUseError) Error() string {
	if e.PID == 0 {
		return fmt.Sprintf("data dir %s is in use by another process", e.Dir)
	}
	return fmt.Sprintf("data dir %s is in use by process %d", e.Dir, e.PID)
}

// dataDirLock is a held lock on a data dir; release lets it go.
type dataDirLock struct{ f *os.File }

// claimDataDir makes dir ready for a cluster and locks it for this one:
// it creates dir (0700), refuses a dir that belongs to another user or is
// shared (the sticky bit, as /tmp), takes access away from group and
// others if a dir made elsewhere gave it (etcd's data, keys and tokens
// live there; logf says so), as the pki dirs are claimed
// (pki.ClaimPrivateDir), and takes the lock at once or returns a
// *DataDirInUseError naming the holder. The lock is an flock, so the
// kernel drops it when the process dies, even by kill -9: a stale lock
// file never blocks a restart.
func claimDataDir(dir string, logf func(string, ...any)) (*dataDirLock, error) {
	if err := pki.ClaimPrivateDir(dir, "data dir", "it holds etcd's data, keys and tokens", logf); err != nil {
		return nil, err
	}
	return lockDataDir(dir)
}

// lockDataDir takes the lock of dir without waiting and writes this
// process's id into the lock file.
func lockDataDir(dir string) (*dataDirLock, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cluster: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &DataDirInUseError{Dir: dir, PID: lockHolder(f)}
		}
		return nil, fmt.Errorf("cluster: lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataDirLock{f: f}, nil
}

// lockHolder reads the process id the holder wrote (0 if none yet).
func lockHolder(f *os.File) int {
	b, err := io.ReadAll(io.LimitReader(f, 32))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// release lets the lock go. The file stays: removing it would let two
// later starts lock two different files.
//
// The lock is taken off before the file is closed: a child process being
// started at that moment (kubectl, from another goroutine) holds a copy of
// the descriptor until it execs, and a flock lasts while any copy of the
// open file does, so closing alone could leave the dir locked for a while
// after Close returned.
func (l *dataDirLock) release() {
	if l != nil && l.f != nil {
		_ = syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		_ = l.f.Close()
		l.f = nil
	}
}
