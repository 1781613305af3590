//go:build unix

package pki

import (
	"io/fs"
	"syscall"
)

// oNoFollow makes an open fail on a symlink (ELOOP) instead of following it.
const oNoFollow = syscall.O_NOFOLLOW

// fileOwner returns the uid that owns the file fi describes.
func fileOwner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
