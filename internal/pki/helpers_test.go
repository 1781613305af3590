package pki_test

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/pki"
)

// t0 is the fixed "now" of the tests.
var t0 = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

// testConfig returns a Config for dir/pki at clock now whose Logf lines
// are appended to *log (when log is not nil).
func testConfig(tb testing.TB, dataDir string, now time.Time, log *[]string) *pki.Config {
	tb.Helper()
	cfg := pki.NewConfig(dataDir)
	cfg.Now = func() time.Time { return now }
	if log != nil {
		cfg.Logf = func(format string, args ...any) {
			*log = append(*log, fmt.Sprintf(format, args...))
		}
	}
	return cfg
}

func mustLoad(tb testing.TB, cfg *pki.Config) *pki.Authority {
	tb.Helper()
	a, err := pki.Load(cfg)
	if err != nil {
		tb.Fatalf("Load: %v", err)
	}
	return a
}

func mustClientCert(tb testing.TB, a *pki.Authority, id pki.Identity) (certPEM, keyPEM []byte) {
	tb.Helper()
	c, k, err := a.ClientCert(id)
	if err != nil {
		tb.Fatalf("ClientCert(%q): %v", id.User, err)
	}
	return c, k
}

func mustToken(tb testing.TB, a *pki.Authority, id pki.Identity) string {
	tb.Helper()
	tok, err := a.Token(id)
	if err != nil {
		tb.Fatalf("Token(%q): %v", id.User, err)
	}
	return tok
}

func mustParseCert(tb testing.TB, data []byte) *x509.Certificate {
	tb.Helper()
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		tb.Fatalf("no CERTIFICATE block in %q", data)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func mustReadFile(tb testing.TB, path string) []byte {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// snapshot returns the content of every file under dir by relative path.
func snapshot(tb testing.TB, dir string) map[string]string {
	tb.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = string(mustReadFile(tb, path))
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// changedFiles lists the files whose content differs between two snapshots,
// or which exist in only one.
func changedFiles(before, after map[string]string) []string {
	var out []string
	for name, b := range before {
		if a, ok := after[name]; !ok || a != b {
			out = append(out, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func wantErrContaining(tb testing.TB, err error, want string) {
	tb.Helper()
	switch {
	case err == nil:
		tb.Fatalf("got no error, want one containing %q", want)
	case !strings.Contains(err.Error(), want):
		tb.Fatalf("error = %q, want it to contain %q", err, want)
	}
}
