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

// ErrInsecurePermissions is wrapped by the error Load, ClientCert and Token
// return when a private key or the token file is accessible to its group or
// to others.
var ErrInsecurePermissions = errors.New("secret file is accessible to group or others")

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

// checkSecrets checks the mode of every private key (*.key) and the token
// file in dir before anything there is used or changed.
func checkSecrets(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if name := e.Name(); strings.HasSuffix(name, ".key") || name == TokenFileName {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			if err := checkSecretMode(filepath.Join(dir, name), fi); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkSecretMode reports a secret file that is not a regular file or is
// accessible to group or others.
func checkSecretMode(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("pki: %s is not a regular file", path)
	}
	// Windows has no such permission bits; its ACLs are out of scope.
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("pki: %s has mode %#o: %w; what it holds may have been copied. If you trust it, run `chmod 600 %s`; otherwise remove %s to start over with new credentials (kubeconfigs made before stop working)",
			path, fi.Mode().Perm(), ErrInsecurePermissions, path, filepath.Dir(path))
	}
	return nil
}

// readSecret reads a file that must be private to its owner. A missing file
// gives an error matching fs.ErrNotExist; one with group or other
// permission bits gives one wrapping ErrInsecurePermissions, and is not read.
func readSecret(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkSecretMode(path, fi); err != nil {
		return nil, err
	}
	return io.ReadAll(f)
}

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
