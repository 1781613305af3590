package pki_test

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/pki"
)

const day = 24 * time.Hour

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name    string
		modify  func(*pki.Config)
		wantErr string // "" for valid
	}{
		{"defaults", func(*pki.Config) {}, ""},
		{"extra IP and DNS name", func(c *pki.Config) { c.Hosts = []string{"10.0.0.5", "fd00::1", "kubesim.example"} }, ""},
		{"nil clock", func(c *pki.Config) { c.Now = nil }, ""},
		{"empty dir", func(c *pki.Config) { c.Dir = "" }, "dir is empty"},
		{"unspecified IPv4", func(c *pki.Config) { c.Hosts = []string{"0.0.0.0"} }, "unspecified"},
		{"unspecified IPv6", func(c *pki.Config) { c.Hosts = []string{"::"} }, "unspecified"},
		{"bad host", func(c *pki.Config) { c.Hosts = []string{"not a host"} }, "neither an IP address nor a DNS name"},
		{"zero CA validity", func(c *pki.Config) { c.CAValidity = 0 }, "must be positive"},
		{"negative renew", func(c *pki.Config) { c.RenewBefore = -time.Second }, "must not be negative"},
		{"renew longer than life", func(c *pki.Config) { c.RenewBefore = c.ServingValidity }, "must be shorter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := pki.NewConfig("/data")
			tt.modify(cfg)
			err := cfg.Validate()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			wantErrContaining(t, err, tt.wantErr)
		})
	}
}

func TestNewConfigDir(t *testing.T) {
	if got, want := pki.NewConfig("/var/kubesim").Dir, filepath.Join("/var/kubesim", "pki"); got != want {
		t.Errorf("Dir = %q, want %q", got, want)
	}
}

func TestLoadCreatesFilesWithModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not enforced on Windows")
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	mustClientCert(t, a, pki.Node("node-1"))
	dir := filepath.Join(dataDir, "pki")
	if a.Dir() != dir {
		t.Fatalf("Dir() = %q, want %q", a.Dir(), dir)
	}
	tests := []struct {
		name string
		want fs.FileMode
	}{
		{".", fs.ModeDir | 0o700},
		{"ca.crt", 0o644},
		{"ca.key", 0o600},
		{"apiserver.crt", 0o644},
		{"apiserver.key", 0o600},
		{"tokens.csv", 0o600},
		{"system-node-node-1.crt", 0o644},
		{"system-node-node-1.key", 0o600},
		{pki.LockFileName, 0o600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := os.Stat(filepath.Join(dir, tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode() & (fs.ModeDir | fs.ModePerm); got != tt.want {
				t.Errorf("mode = %v, want %v", got, tt.want)
			}
		})
	}
	if got, want := len(snapshot(t, dir)), len(tests)-1; got != want {
		t.Errorf("%d files in %s, want %d (left-over temporary files?): %v", got, dir, want, keys(snapshot(t, dir)))
	}
	if a.TokenFile() != filepath.Join(dir, "tokens.csv") {
		t.Errorf("TokenFile() = %q", a.TokenFile())
	}
}

func TestCA(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	ca := mustParseCert(t, a.CACertPEM())
	if ca.Subject.CommonName != "kubernetes" || !ca.IsCA || ca.KeyUsage&x509.KeyUsageCertSign == 0 {
		t.Errorf("CA subject %q IsCA %v key usage %b, want CN kubernetes, a CA that signs certificates", ca.Subject, ca.IsCA, ca.KeyUsage)
	}
	if got, want := ca.NotAfter.Sub(t0), pki.DefaultCAValidity; got != want {
		t.Errorf("CA valid for %s from now, want %s", got, want)
	}
	if err := ca.CheckSignatureFrom(ca); err != nil {
		t.Errorf("CA is not self-signed: %v", err)
	}
}

func TestReloadReusesEverything(t *testing.T) {
	dataDir := t.TempDir()
	ids := []pki.Identity{pki.Admin(), pki.Scheduler(), pki.Node("node-1"), pki.Student()}

	first := mustLoad(t, testConfig(t, dataDir, t0, nil))
	certs, tokens := map[string]string{}, map[string]string{}
	for _, id := range ids {
		c, k := mustClientCert(t, first, id)
		certs[id.User] = string(c) + string(k)
		tokens[id.User] = mustToken(t, first, id)
	}
	before := snapshot(t, dataDir)

	// A later start, a day later, with the same directory.
	var log []string
	second := mustLoad(t, testConfig(t, dataDir, t0.Add(day), &log))
	if string(second.CACertPEM()) != string(first.CACertPEM()) {
		t.Error("CA certificate changed on reload")
	}
	if !second.ServingTLSConfig().Certificates[0].Leaf.Equal(first.ServingTLSConfig().Certificates[0].Leaf) {
		t.Error("serving certificate changed on reload")
	}
	for _, id := range ids {
		c, k := mustClientCert(t, second, id)
		if string(c)+string(k) != certs[id.User] {
			t.Errorf("client certificate of %q changed on reload", id.User)
		}
		if got := mustToken(t, second, id); got != tokens[id.User] {
			t.Errorf("token of %q changed on reload: %q, was %q", id.User, got, tokens[id.User])
		}
	}
	if changed := changedFiles(before, snapshot(t, dataDir)); len(changed) > 0 {
		t.Errorf("files changed by the second Load: %v", changed)
	}
	if len(log) > 0 {
		t.Errorf("second Load logged %q, want nothing", log)
	}
}

func TestServingCertVerifies(t *testing.T) {
	cfg := testConfig(t, t.TempDir(), t0, nil)
	cfg.Hosts = []string{"10.0.0.5", "kubesim.example"}
	a := mustLoad(t, cfg)
	tc := a.ServingTLSConfig()
	leaf := tc.Certificates[0].Leaf
	tests := []struct {
		host  string
		usage x509.ExtKeyUsage
		ok    bool
	}{
		{"localhost", x509.ExtKeyUsageServerAuth, true},
		{"127.0.0.1", x509.ExtKeyUsageServerAuth, true},
		{"::1", x509.ExtKeyUsageServerAuth, true},
		{"10.0.0.5", x509.ExtKeyUsageServerAuth, true},
		{"kubesim.example", x509.ExtKeyUsageServerAuth, true},
		{"example.com", x509.ExtKeyUsageServerAuth, false},
		{"10.0.0.6", x509.ExtKeyUsageServerAuth, false},
		{"localhost", x509.ExtKeyUsageClientAuth, false},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			_, err := leaf.Verify(x509.VerifyOptions{
				DNSName:     tt.host,
				Roots:       a.CAPool(),
				CurrentTime: t0,
				KeyUsages:   []x509.ExtKeyUsage{tt.usage},
			})
			if (err == nil) != tt.ok {
				t.Errorf("Verify(%s, usage %v) error = %v, want ok=%v", tt.host, tt.usage, err, tt.ok)
			}
		})
	}
	if tc.MinVersion != 0x0303 {
		t.Errorf("MinVersion = %#x, want TLS 1.2", tc.MinVersion)
	}
	if !slices.Equal(tc.NextProtos, []string{"h2", "http/1.1"}) {
		t.Errorf("NextProtos = %q", tc.NextProtos)
	}
	if tc.ClientCAs == nil || tc.ClientAuth != 3 { // tls.VerifyClientCertIfGiven
		t.Errorf("ClientCAs %v, ClientAuth %v, want the CA and VerifyClientCertIfGiven", tc.ClientCAs, tc.ClientAuth)
	}
}

func TestClientCert(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	tests := []struct {
		id       pki.Identity
		wantFile string
	}{
		{pki.Admin(), "admin"},
		{pki.Scheduler(), "system-kube-scheduler"},
		{pki.Node("node-1"), "system-node-node-1"},
		{pki.Student(), "student"},
		{pki.Identity{User: "alice@example.com", Groups: []string{"dev", "ops"}}, "alice@example.com"},
	}
	for _, tt := range tests {
		t.Run(tt.id.User, func(t *testing.T) {
			certPEM, keyPEM := mustClientCert(t, a, tt.id)
			c := mustParseCert(t, certPEM)
			if c.Subject.CommonName != tt.id.User {
				t.Errorf("CN = %q, want %q", c.Subject.CommonName, tt.id.User)
			}
			if !slices.Equal(c.Subject.Organization, tt.id.Groups) {
				t.Errorf("O = %q, want %q", c.Subject.Organization, tt.id.Groups)
			}
			opts := x509.VerifyOptions{Roots: a.CAPool(), CurrentTime: t0, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
			if _, err := c.Verify(opts); err != nil {
				t.Errorf("verify for client auth: %v", err)
			}
			opts.KeyUsages = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
			if _, err := c.Verify(opts); err == nil {
				t.Error("client certificate verifies for server auth, want it not to")
			}
			dir := filepath.Join(dataDir, "pki")
			if got := mustReadFile(t, filepath.Join(dir, tt.wantFile+".crt")); string(got) != string(certPEM) {
				t.Errorf("%s.crt differs from the returned certificate", tt.wantFile)
			}
			if got := mustReadFile(t, filepath.Join(dir, tt.wantFile+".key")); string(got) != string(keyPEM) {
				t.Errorf("%s.key differs from the returned key", tt.wantFile)
			}
		})
	}
}

func TestClientCertRejects(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	tests := []struct {
		name    string
		id      pki.Identity
		wantErr string
	}{
		{"empty user", pki.Identity{}, "user name is empty"},
		{"node without name", pki.Node(""), "without a node name"},
		{"would replace the CA", pki.Identity{User: "ca"}, "would replace ca.crt"},
		{"would replace the CA, other case", pki.Identity{User: "CA"}, "would replace ca.crt"},
		{"would replace the serving cert", pki.Identity{User: "apiserver"}, "would replace apiserver.crt"},
		{"path separator", pki.Identity{User: "../x"}, "cannot be part of a file name"},
		{"hidden file", pki.Identity{User: ".x"}, "may not start with '.'"},
		{"space", pki.Identity{User: "a b"}, "cannot be part of a file name"},
		{"newline", pki.Identity{User: "a\nb"}, "control character"},
		{"comma in group", pki.Identity{User: "bob", Groups: []string{"a,b"}}, "contains a comma"},
		{"empty group", pki.Identity{User: "bob", Groups: []string{""}}, "empty group name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := a.ClientCert(tt.id)
			wantErrContaining(t, err, tt.wantErr)
		})
	}
}

func TestClientCertFileNameCollision(t *testing.T) {
	a := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
	mustClientCert(t, a, pki.Identity{User: "team:a"})
	_, _, err := a.ClientCert(pki.Identity{User: "team-a"})
	wantErrContaining(t, err, `belongs to "team:a"`)
}

func TestClientCertGroupsChange(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	c1, _ := mustClientCert(t, a, pki.Identity{User: "bob", Groups: []string{"dev"}})
	c2, _ := mustClientCert(t, a, pki.Identity{User: "bob", Groups: []string{"dev", "ops"}})
	if string(c1) == string(c2) {
		t.Fatal("same certificate for other groups")
	}
	if got := mustParseCert(t, c2).Subject.Organization; !slices.Equal(got, []string{"dev", "ops"}) {
		t.Errorf("O = %q, want [dev ops]", got)
	}
	// A restart asking for the new groups gets the stored certificate.
	b := mustLoad(t, testConfig(t, dataDir, t0, nil))
	if c3, _ := mustClientCert(t, b, pki.Identity{User: "bob", Groups: []string{"dev", "ops"}}); string(c3) != string(c2) {
		t.Error("certificate changed after restart with the same groups")
	}
}

func TestHostsChangeRegeneratesOnlyServingCert(t *testing.T) {
	serving := []string{filepath.Join("pki", "apiserver.crt"), filepath.Join("pki", "apiserver.key")}
	tests := []struct {
		name        string
		hosts       []string
		wantChanged []string
	}{
		{"same names", nil, nil},
		{"loopback listed again", []string{"127.0.0.1", "LOCALHOST", "::1"}, nil},
		{"extra IP", []string{"10.0.0.5"}, serving},
		{"extra DNS name", []string{"kubesim.example"}, serving},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			a := mustLoad(t, testConfig(t, dataDir, t0, nil))
			mustClientCert(t, a, pki.Admin())
			before := snapshot(t, dataDir)

			cfg := testConfig(t, dataDir, t0, nil)
			cfg.Hosts = tt.hosts
			b := mustLoad(t, cfg)
			after := snapshot(t, dataDir)
			if got := changedFiles(before, after); !slices.Equal(got, tt.wantChanged) {
				t.Fatalf("changed files = %q, want %q", got, tt.wantChanged)
			}
			leaf := b.ServingTLSConfig().Certificates[0].Leaf
			for _, h := range append([]string{"localhost", "127.0.0.1", "::1"}, tt.hosts...) {
				if err := leaf.VerifyHostname(h); err != nil {
					t.Errorf("serving certificate: %v", err)
				}
			}
			// And the next start with the same hosts changes nothing.
			mustLoad(t, cfg)
			if got := changedFiles(after, snapshot(t, dataDir)); len(got) > 0 {
				t.Errorf("third Load changed %q", got)
			}
		})
	}
}

func TestServingCertRenewal(t *testing.T) {
	tests := []struct {
		name    string
		later   time.Duration
		wantNew bool
		wantLog string
	}{
		{"a day later", day, false, ""},
		{"well before expiry", 300 * day, false, ""},
		{"within 30 days of expiry", 340 * day, true, "expires on"},
		{"expired", 366 * day, true, "expired on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			a := mustLoad(t, testConfig(t, dataDir, t0, nil))
			oldLeaf := a.ServingTLSConfig().Certificates[0].Leaf

			var log []string
			now := t0.Add(tt.later)
			b := mustLoad(t, testConfig(t, dataDir, now, &log))
			leaf := b.ServingTLSConfig().Certificates[0].Leaf
			if string(b.CACertPEM()) != string(a.CACertPEM()) {
				t.Error("CA changed")
			}
			if gotNew := !leaf.Equal(oldLeaf); gotNew != tt.wantNew {
				t.Fatalf("new serving certificate = %v, want %v (log %q)", gotNew, tt.wantNew, log)
			}
			if !tt.wantNew {
				return
			}
			if len(log) != 1 || !strings.Contains(log[0], "apiserver.crt") || !strings.Contains(log[0], tt.wantLog) {
				t.Errorf("log = %q, want one line about apiserver.crt saying %q", log, tt.wantLog)
			}
			if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "localhost", Roots: b.CAPool(), CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				t.Errorf("renewed certificate does not verify: %v", err)
			}
			if left := leaf.NotAfter.Sub(now); left <= pki.DefaultRenewBefore {
				t.Errorf("renewed certificate valid for only %s", left)
			}
		})
	}
}

func TestClientCertRenewal(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	c1, _ := mustClientCert(t, a, pki.Admin())
	b := mustLoad(t, testConfig(t, dataDir, t0.Add(366*day), nil))
	c2, _ := mustClientCert(t, b, pki.Admin())
	if string(c1) == string(c2) {
		t.Fatal("expired client certificate was reused")
	}
}

func TestInsecureSecretRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits on Windows")
	}
	tests := []struct {
		file string
		mode fs.FileMode
		call func(*pki.Config) error
	}{
		{"ca.key", 0o640, load},
		{"ca.key", 0o604, load},
		{"apiserver.key", 0o660, load},
		{"tokens.csv", 0o644, load},
		// The serving certificate would be replaced, but nothing may change.
		{"tokens.csv", 0o640, func(cfg *pki.Config) error {
			cfg.Hosts = []string{"10.0.0.5"}
			return load(cfg)
		}},
		// Found by Load already, before ClientCert asks for it.
		{"admin.key", 0o604, load},
		{"admin.key", 0o640, func(cfg *pki.Config) error {
			a, err := pki.Load(cfg)
			if err != nil {
				return err
			}
			_, _, err = a.ClientCert(pki.Admin())
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+tt.mode.String(), func(t *testing.T) {
			dataDir := t.TempDir()
			a := mustLoad(t, testConfig(t, dataDir, t0, nil))
			mustClientCert(t, a, pki.Admin())
			path := filepath.Join(dataDir, "pki", tt.file)
			if err := os.Chmod(path, tt.mode); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dataDir)

			err := tt.call(testConfig(t, dataDir, t0, nil))
			if !errors.Is(err, pki.ErrInsecurePermissions) {
				t.Fatalf("error = %v, want ErrInsecurePermissions", err)
			}
			for _, want := range []string{path, "chmod 600"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tt.mode {
				t.Errorf("mode changed to %v, want it left at %v", fi.Mode().Perm(), tt.mode)
			}
			if got := changedFiles(before, snapshot(t, dataDir)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}

func load(cfg *pki.Config) error {
	_, err := pki.Load(cfg)
	return err
}

func TestBrokenCARefused(t *testing.T) {
	tests := []struct {
		name    string
		breakIt func(t *testing.T, dir string)
		now     time.Time
		wantErr string
	}{
		{"certificate missing", func(t *testing.T, dir string) { mustRemove(t, filepath.Join(dir, "ca.crt")) }, t0, "only one of"},
		{"key missing", func(t *testing.T, dir string) { mustRemove(t, filepath.Join(dir, "ca.key")) }, t0, "only one of"},
		{"key of another CA", func(t *testing.T, dir string) {
			other := mustLoad(t, testConfig(t, t.TempDir(), t0, nil))
			key := mustReadFile(t, filepath.Join(other.Dir(), "ca.key"))
			if err := os.WriteFile(filepath.Join(dir, "ca.key"), key, 0o600); err != nil {
				t.Fatal(err)
			}
		}, t0, "private key does not match public key"},
		{"expired", func(*testing.T, string) {}, t0.Add(pki.DefaultCAValidity + day), "expired on"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			mustLoad(t, testConfig(t, dataDir, t0, nil))
			tt.breakIt(t, filepath.Join(dataDir, "pki"))
			before := snapshot(t, dataDir)
			_, err := pki.Load(testConfig(t, dataDir, tt.now, nil))
			wantErrContaining(t, err, tt.wantErr)
			if got := changedFiles(before, snapshot(t, dataDir)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}

func TestCorruptServingCertReplaced(t *testing.T) {
	dataDir := t.TempDir()
	a := mustLoad(t, testConfig(t, dataDir, t0, nil))
	if err := os.WriteFile(filepath.Join(dataDir, "pki", "apiserver.crt"), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log []string
	b := mustLoad(t, testConfig(t, dataDir, t0, &log))
	if string(b.CACertPEM()) != string(a.CACertPEM()) {
		t.Error("CA changed")
	}
	if len(log) != 1 || !strings.Contains(log[0], "unusable") {
		t.Errorf("log = %q, want one line saying the old certificate was unusable", log)
	}
}

func mustRemove(tb testing.TB, path string) {
	tb.Helper()
	if err := os.Remove(path); err != nil {
		tb.Fatal(err)
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
