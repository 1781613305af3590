package pki_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/pki"
)

func TestServiceAccountKey(t *testing.T) {
	dir := t.TempDir()
	a := mustLoad(t, testConfig(t, dir, time.Now(), nil))
	first, err := a.ServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.Dir(), pki.ServiceAccountKeyFile)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("%s mode %v, want 0600", path, fi.Mode().Perm())
	}
	// A second Authority on the same directory reads the same key.
	again, err := mustLoad(t, testConfig(t, dir, time.Now(), nil)).ServiceAccountKey()
	if err != nil {
		t.Fatal(err)
	}
	if !first.Equal(again) {
		t.Error("the key changed on a second load")
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ServiceAccountKey(); !errors.Is(err, pki.ErrInsecurePermissions) {
		t.Errorf("world-readable key: %v, want ErrInsecurePermissions", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	wantErrContaining(t, func() error { _, err := a.ServiceAccountKey(); return err }(), "no EC PRIVATE KEY PEM block")
}
