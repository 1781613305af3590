package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

// TestServeRefusesPKIFileOfAnotherUser is the attack of issue 26: in a
// --pki-dir left open to everyone, another user renamed a tokens.csv of
// their own over kubesim's, naming themselves system:masters. serve
// refuses to start, with exit code 1 and one line on stderr naming the
// file and its owner, and the log says the dir was closed to others.
func TestServeRefusesPKIFileOfAnotherUser(t *testing.T) {
	const otherUID = 65534 // nobody
	if os.Geteuid() != 0 {
		t.Skipf("giving a file to another user (uid %d) takes root; this test runs as uid %d", otherUID, os.Geteuid())
	}
	kubesimBinary(t)
	dataDir, pkiDir := t.TempDir(), filepath.Join(t.TempDir(), "pki")
	cfg := pki.NewConfig("")
	cfg.Dir = pkiDir
	if _, err := pki.Load(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pkiDir, 0o777); err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(pkiDir, pki.TokenFileName)
	forged := tokens + ".forged"
	if err := os.WriteFile(forged, []byte("forged-token-forged-token-forged-token-forged,mallory,mallory,system:masters\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(forged, otherUID, otherUID); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(forged, tokens); err != nil {
		t.Fatal(err)
	}

	p := startKubesim(t, nil, serveArgs(dataDir, "--pki-dir", pkiDir)...)
	if code := p.wait(exitDeadline); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	want := "kubesim: pki: " + tokens + " belongs to uid 65534, not to this user (uid 0)"
	if got := p.stderr.String(); !strings.HasPrefix(got, want) || strings.Count(got, "\n") != 1 {
		t.Errorf("stderr %q, want one line starting %q", got, want)
	}
	log, err := os.ReadFile(filepath.Join(dataDir, "logs", "apiserver.log"))
	if err != nil {
		t.Fatal(err)
	}
	if note := "pki dir " + pkiDir + " had mode 0777; now 0700"; !strings.Contains(string(log), note) {
		t.Errorf("apiserver.log has no %q:\n%s", note, log)
	}
}
