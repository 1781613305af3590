//go:build !unix

package pki

import "io/fs"

// oNoFollow is not available: a symlink is followed.
const oNoFollow = 0

// fileOwner reports no owner: on systems without uids (Windows) files
// are protected by ACLs, which this package does not check.
func fileOwner(fs.FileInfo) (uid int, ok bool) { return 0, false }
