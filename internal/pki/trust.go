package pki

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrOtherOwner is wrapped by the error Load, CreateEtcdPKI,
// LoadEtcdPKI and the methods reading a file return when a pki dir, a
// file kubesim reads there, or a symlink standing for one belongs to
// another user than the one running kubesim: that user could have
// written what it holds.
var ErrOtherOwner = errors.New("another user could have written it")

// fileKind says what a file in a pki dir holds, and so which modes are
// allowed for it.
type fileKind int

const (
	// kindCert is a certificate: anyone may read it, only its owner
	// write it (etcd trusts the ca.crt it is given with no key to match).
	kindCert fileKind = iota
	// kindSecret is a private key or the token file: private to its owner.
	kindSecret
	// kindLock is the lock file: its content is never read; only its
	// owner is checked (one who may open it may hold the lock).
	kindLock
)

// kindOf returns the kind of the file named name in a pki dir, and false
// for a name kubesim does not read (a temporary file, a file of the user's).
func kindOf(name string) (fileKind, bool) {
	switch {
	case strings.HasSuffix(name, ".key"), name == TokenFileName:
		return kindSecret, true
	case strings.HasSuffix(name, ".crt"):
		return kindCert, true
	case name == LockFileName:
		return kindLock, true
	}
	return 0, false
}

// claimDir is ClaimPrivateDir for a pki dir.
func claimDir(dir string, logf func(string, ...any)) error {
	return ClaimPrivateDir(dir, pkiDir, "it holds private keys and tokens; files of other users in it are refused",
		func(format string, args ...any) { logf("pki: "+format, args...) })
}

// pkiDir is what the messages about a pki dir call it.
const pkiDir = "pki dir"

// ClaimPrivateDir makes dir ready to hold secrets, before anything in it
// is read or written: it creates it (0700) when missing, refuses a path
// that is not a directory or a directory of another user (ErrOtherOwner),
// and takes every permission away from group and others, saying so
// through logf (why says what the dir holds). what names the dir in the
// messages ("pki dir", "data dir"). kubesim's data dir and pki dirs are
// claimed with it.
//
// Every group and other bit goes, not only the write bits: the names in
// the dir say who has credentials, and no one but this user can use what
// is in it anyway. Tightening, rather than refusing, is safe because it
// is done first: once the mode is 0700 no one else can add, remove or
// rename an entry, and whatever another user put there while it was open
// is theirs (a pki dir refuses it, file by file: checkFiles and
// readChecked; they cannot make a file that belongs to this user). The
// one exception is a dir with the sticky bit (as /tmp), which is meant to
// be shared: changing its mode would lock its other users out, so it is
// refused instead.
func ClaimPrivateDir(dir, what, why string, logf func(string, ...any)) error {
	if err := ensureDir(dir); err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	f, fi, err := openDir(dir, what)
	if err != nil {
		return err
	}
	defer f.Close()
	perm := fi.Mode().Perm()
	// Windows has no such permission bits; its ACLs are out of scope.
	if runtime.GOOS == "windows" || perm&0o077 == 0 {
		return nil
	}
	if fi.Mode()&fs.ModeSticky != 0 {
		return sharedDirError(dir, what, fi)
	}
	if err := f.Chmod(dirMode); err != nil {
		return fmt.Errorf("%s %s: %w", what, dir, err)
	}
	logf("%s %s had mode %#o; now 0700 (%s)", what, dir, perm, why)
	return nil
}

// checkDir is claimDir for a reader that changes nothing and has no log
// (LoadEtcdPKI): it refuses a dir that group or others may write (they
// could have replaced the files) or that is shared (sticky bit), saying
// how to close it. Read and search bits alone are left to the user: the
// private keys in the dir are protected by their own mode, which
// checkFiles checks.
func checkDir(dir string) error {
	f, fi, err := openDir(dir, pkiDir)
	if err != nil {
		return err
	}
	defer f.Close()
	perm := fi.Mode().Perm()
	if runtime.GOOS == "windows" || perm&0o022 == 0 {
		return nil
	}
	if fi.Mode()&fs.ModeSticky != 0 {
		return sharedDirError(dir, pkiDir, fi)
	}
	return fmt.Errorf("pki dir %s has mode %#o: %w; they could have replaced the files in it. If you trust what it holds, run `chmod 700 %s`; otherwise remove it and make it again (kubesim etcd certs --pki-dir %s)", dir, perm, ErrInsecurePermissions, dir, dir)
}

// openDir opens dir (following a symlink, as the data dir is found) and
// returns it with its FileInfo taken from the open directory, so that what
// is checked is what is changed. It refuses a path that is not a directory
// and a directory that belongs to another user; what names the dir in the
// errors.
func openDir(dir, what string) (*os.File, fs.FileInfo, error) {
	// Stat first: opening a FIFO would wait for a writer.
	if fi, err := os.Stat(dir); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	} else if !fi.IsDir() {
		return nil, nil, fmt.Errorf("%s %s is not a directory", what, dir)
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", what, err)
	}
	fi, err := f.Stat()
	if err == nil {
		err = checkDirInfo(dir, what, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// checkDirInfo refuses what fi describes unless it is a directory of this
// user.
func checkDirInfo(dir, what string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a directory", what, dir)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return fmt.Errorf("%s %s belongs to uid %d, not to this user (uid %d): %w; use a directory of your own", what, dir, uid, os.Geteuid(), ErrOtherOwner)
	}
	return nil
}

// sharedDirError is the error for a dir with the sticky bit.
func sharedDirError(dir, what string, fi fs.FileInfo) error {
	return fmt.Errorf("%s %s has mode %#o: the sticky bit marks a directory shared with other users (as /tmp), whose files kubesim does not trust and whose mode is not its to change; use a directory of your own",
		what, dir, uint32(fi.Mode().Perm())|0o1000)
}

// checkFiles checks, before anything in dir is used or changed, every
// file kubesim reads there (see kindOf) with checkFile, a symlink
// standing for one included (see statFile).
func checkFiles(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	for _, e := range entries {
		kind, ok := kindOf(e.Name())
		if !ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		fi, _, err := statFile(path)
		if err != nil {
			return err
		}
		if err := checkFile(path, fi, kind); err != nil {
			return err
		}
	}
	return nil
}

// statFile returns the FileInfo of the file path leads to, and whether
// path is a symlink. A symlink must itself belong to this user, as the
// file must (checkFile): a link another user made could lead anywhere,
// even to a file of this user's they want read as, say, the token file.
// A symlink of this user's is followed, as opening path does. An error
// matches fs.ErrNotExist when nothing is there (or the link leads
// nowhere).
func statFile(path string) (fi fs.FileInfo, link bool, err error) {
	if fi, err = os.Lstat(path); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return fi, false, err
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Geteuid() {
		return nil, true, fmt.Errorf("pki: %s is a symlink that belongs to uid %d, not to this user (uid %d): %w. If you trust where it leads, run `sudo chown -h %d %s`; otherwise remove %s to start over with new credentials (kubeconfigs made before stop working)",
			path, uid, os.Geteuid(), ErrOtherOwner, os.Geteuid(), path, filepath.Dir(path))
	}
	fi, err = os.Stat(path)
	return fi, true, err
}

// openFlag returns flag for opening a path statFile found to be a
// symlink or not: where there was none, one put there since is not
// followed (the open fails), since its owner was not checked.
func openFlag(flag int, link bool) int {
	if !link {
		flag |= oNoFollow
	}
	return flag
}

// checkFile reports a file kubesim reads from a pki dir that is not a
// regular file, belongs to another user (ErrOtherOwner), or has a mode
// its kind does not allow (ErrInsecurePermissions): a secret open to
// group or others, a certificate they may write. The error names the
// file and the ways out.
func checkFile(path string, fi fs.FileInfo, kind fileKind) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("pki: %s is not a regular file", path)
	}
	euid := os.Geteuid()
	if uid, ok := fileOwner(fi); ok && uid != euid {
		return fmt.Errorf("pki: %s belongs to uid %d, not to this user (uid %d): %w. If you trust what it holds, run `sudo chown %d %s`; otherwise remove %s to start over with new credentials (kubeconfigs made before stop working)",
			path, uid, euid, ErrOtherOwner, euid, path, filepath.Dir(path))
	}
	// Windows has no such permission bits; its ACLs are out of scope.
	if runtime.GOOS == "windows" {
		return nil
	}
	perm := fi.Mode().Perm()
	switch {
	case kind == kindSecret && perm&0o077 != 0:
		return fmt.Errorf("pki: %s has mode %#o: %w; what it holds may have been copied. If you trust it, run `chmod 600 %s`; otherwise remove %s to start over with new credentials (kubeconfigs made before stop working)",
			path, perm, ErrInsecurePermissions, path, filepath.Dir(path))
	case kind == kindCert && perm&0o022 != 0:
		return fmt.Errorf("pki: %s has mode %#o: %w; what it holds may have been changed. If you trust it, run `chmod 644 %s`; otherwise remove %s to start over with new credentials (kubeconfigs made before stop working)",
			path, perm, ErrInsecurePermissions, path, filepath.Dir(path))
	}
	return nil
}

// readChecked reads the file at path, of the given kind, opened with
// openChecked. A missing file gives an error matching fs.ErrNotExist.
func readChecked(path string, kind fileKind) ([]byte, error) {
	f, err := openChecked(path, kind, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// openChecked opens the file at path, of the given kind, with flag (and
// perm, for a file it creates), after checking it with statFile and
// checkFile, and checks again, with checkFile, the file it opened
// (fstat): a file put in its place between the first check and the open
// is not trusted either, nor followed if it is a symlink (openFlag). A
// missing file is an error matching fs.ErrNotExist unless flag creates
// it.
func openChecked(path string, kind fileKind, flag int, perm fs.FileMode) (*os.File, error) {
	fi, link, err := statFile(path)
	// Checked before opening too: opening a FIFO would wait for a
	// writer, and O_CREATE would follow another user's symlink.
	if err == nil {
		err = checkFile(path, fi, kind)
	}
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && flag&os.O_CREATE != 0) {
		return nil, err
	}
	f, err := os.OpenFile(path, openFlag(flag, link), perm)
	if err != nil {
		return nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = checkFile(path, fi, kind)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
