//go:build unix

package pki

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// LockFileName is the file in Config.Dir that Load, and every method
// that writes a file there, hold locked (flock, exclusive) while they
// read and write, so that several processes sharing the directory (API
// servers of one cluster, serve --pki-dir) never make two CAs, two
// service account keys, or lose each other's tokens. The kernel drops
// the lock when its holder dies, so a stale file never blocks.
const LockFileName = "pki.lock"

// lockDir takes the lock of dir, waiting while another process holds
// it, and returns the function that lets it go. Within one process the
// Authority's mutex serializes callers: lockDir is never taken twice at
// once by one Authority (a second flock on another descriptor of the
// same file would wait for the first). A lock file (or a symlink standing
// for it) of another user is refused before it is locked (ErrOtherOwner):
// that user could hold the lock for ever.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFileName)
	f, err := openChecked(path, kindLock, os.O_RDWR|os.O_CREATE, secretMode)
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) { // the file system's, not a check's
		return nil, fmt.Errorf("pki: lock: %w", err)
	}
	if err != nil {
		return nil, err
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("pki: lock %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil
}
