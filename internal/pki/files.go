package pki

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// File names inside Config.Dir.
const (
	CACertFile      = "ca.crt"
	CAKeyFile       = "ca.key"
	ServingCertFile = "apiserver.crt"
	ServingKeyFile  = "apiserver.key"
	TokenFileName   = "tokens.csv"
)

// File modes this package creates.
const (
	dirMode    fs.FileMode = 0o700
	secretMode fs.FileMode = 0o600
	certMode   fs.FileMode = 0o644
)

// ErrInsecurePermissions is wrapped by the error Load, CreateEtcdPKI,
// LoadEtcdPKI and the methods reading a file return when a private key or
// the token file is accessible to its group or to others, or a certificate
// (or, for LoadEtcdPKI, the directory) is writable by them.
var ErrInsecurePermissions = errors.New("open to group or others")

// ensureDir creates dir with mode 0700 (and missing parents) when it does
// not exist. An existing directory is left as it is.
func ensureDir(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, dirMode); err != nil {
		return err
	}
	// MkdirAll's mode passes through the umask; state it exactly.
	return os.Chmod(dir, dirMode)
}

// readSecret reads a file that must be private to its owner, this user
// (see readChecked). A missing file gives an error matching
// fs.ErrNotExist; one with group or other permission bits gives one
// wrapping ErrInsecurePermissions, one of another user ErrOtherOwner, and
// neither is read.
func readSecret(path string) ([]byte, error) { return readChecked(path, kindSecret) }

// writeFileAtomic replaces path with data and the given mode: it writes a
// temporary file in the same directory, syncs it and renames it over path,
// so a reader sees the old content or the new one, never a mix.
func writeFileAtomic(path string, data []byte, mode fs.FileMode) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	// CreateTemp makes the file 0600; set the final mode before any
	// secret is in it, so it is never wider than asked.
	if err = f.Chmod(mode); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
