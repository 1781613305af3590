package pki_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

// otherUID is the owner the tests give files "of another user": nobody.
const otherUID = 65534

// skipUnlessRoot skips a test that must give a file to another user:
// only root can chown.
func skipUnlessRoot(tb testing.TB) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skipf("giving a file to another user (uid %d) takes root; this test runs as uid %d", otherUID, os.Geteuid())
	}
}

// mustGiveAway makes otherUID the owner of path itself (of a symlink, not
// of what it leads to).
func mustGiveAway(tb testing.TB, path string) {
	tb.Helper()
	if err := os.Lchown(path, otherUID, -1); err != nil {
		tb.Fatal(err)
	}
}

func mustChmod(tb testing.TB, path string, mode fs.FileMode) {
	tb.Helper()
	if err := os.Chmod(path, mode); err != nil {
		tb.Fatal(err)
	}
}

// mustPopulate fills dataDir/pki as a cluster does: CA, serving pair,
// tokens, a client certificate and the service account key.
func mustPopulate(tb testing.TB, cfg *pki.Config) {
	tb.Helper()
	a := mustLoad(tb, cfg)
	mustClientCert(tb, a, pki.Admin())
	if _, err := a.ServiceAccountKey(); err != nil {
		tb.Fatal(err)
	}
}

// etcdConfig returns a Config whose Dir is dir, for the etcd PKI.
func etcdConfig(tb testing.TB, dir string, log *[]string) *pki.Config {
	tb.Helper()
	cfg := testConfig(tb, "", t0, log)
	cfg.Dir = dir
	return cfg
}

func createEtcd(cfg *pki.Config) error {
	_, err := pki.CreateEtcdPKI(cfg)
	return err
}

func loadEtcd(cfg *pki.Config) error {
	_, err := pki.LoadEtcdPKI(cfg.Dir)
	return err
}

// TestPKIDirModeTightened: a pki dir open to group or others, made by
// hand or opened up after kubesim made it, is set to 0700 before
// anything in it is used, and the log says so; the credentials in it
// (all this user's) are still used.
func TestPKIDirModeTightened(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no directory modes on Windows")
	}
	tests := []struct {
		name    string
		mode    fs.FileMode
		fresh   bool // made by hand, empty; otherwise populated first
		serving bool // the mode is on Config.ServingDir rather than Dir
		call    func(*pki.Config) error
	}{
		{"made by hand 0755", 0o755, true, false, load},
		{"made by hand 0777", 0o777, true, false, load},
		{"group writable", 0o770, false, false, load},
		{"world writable", 0o777, false, false, load},
		{"others only", 0o703, false, false, load},
		{"group and others read", 0o755, false, false, load},
		{"serving dir world writable", 0o777, false, true, load},
		{"etcd dir made by hand 0777", 0o777, true, false, createEtcd},
		{"etcd dir group writable", 0o770, false, false, createEtcd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			var log []string
			cfg := testConfig(t, root, t0, &log)
			dir := cfg.Dir
			if tt.serving {
				cfg.Dir, cfg.ServingDir = filepath.Join(root, "shared"), dir
			}
			if tt.fresh {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
			} else if err := tt.call(cfg); err != nil {
				t.Fatal(err)
			}
			mustChmod(t, dir, tt.mode)
			log = nil

			if err := tt.call(cfg); err != nil {
				t.Fatalf("error = %v, want the dir tightened and used", err)
			}
			fi, err := os.Stat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := fi.Mode().Perm(); got != 0o700 {
				t.Errorf("mode = %#o, want 0700", got)
			}
			want := fmt.Sprintf("pki dir %s had mode %#o; now 0700", dir, tt.mode)
			if !anyContains(log, want) {
				t.Errorf("log %q has no line containing %q", log, want)
			}
		})
	}
}

func anyContains(lines []string, s string) bool {
	for _, l := range lines {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// TestPKIDirOpenToOthersRefused: where kubesim does not tighten a dir,
// it refuses it and changes nothing: a shared dir (sticky bit, as /tmp,
// whose mode is not kubesim's to change), and an etcd PKI dir that
// LoadEtcdPKI (which only reads, and has no log) finds writable by
// group or others.
func TestPKIDirOpenToOthersRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no directory modes on Windows")
	}
	tests := []struct {
		name    string
		mode    fs.FileMode
		etcd    bool
		call    func(*pki.Config) error
		wantErr string
	}{
		{"sticky world writable", fs.ModeSticky | 0o777, false, load, "sticky bit"},
		{"etcd sticky world writable", fs.ModeSticky | 0o777, true, createEtcd, "sticky bit"},
		{"etcd load group writable", 0o770, true, loadEtcd, "chmod 700"},
		{"etcd load world writable", 0o777, true, loadEtcd, "chmod 700"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := testConfig(t, root, t0, nil)
			if tt.etcd {
				cfg = etcdConfig(t, filepath.Join(root, "etcd"), nil)
				if err := createEtcd(cfg); err != nil {
					t.Fatal(err)
				}
			} else {
				mustPopulate(t, cfg)
			}
			mustChmod(t, cfg.Dir, tt.mode)
			before := snapshot(t, root)

			err := tt.call(cfg)
			wantErrContaining(t, err, tt.wantErr)
			if !strings.Contains(err.Error(), cfg.Dir) {
				t.Errorf("error %q does not name %s", err, cfg.Dir)
			}
			if fi, err := os.Stat(cfg.Dir); err != nil || fi.Mode()&(fs.ModeSticky|fs.ModePerm) != tt.mode {
				t.Errorf("mode changed to %v (%v), want it left at %v", fi.Mode(), err, tt.mode)
			}
			if got := changedFiles(before, snapshot(t, root)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}

// TestPKIDirOfAnotherUserRefused: a pki dir that belongs to another user
// is refused before anything in it is read or written.
func TestPKIDirOfAnotherUserRefused(t *testing.T) {
	skipUnlessRoot(t)
	tests := []struct {
		name    string
		etcd    bool
		serving bool
		call    func(*pki.Config) error
	}{
		{"Load", false, false, load},
		{"Load serving dir", false, true, load},
		{"CreateEtcdPKI", true, false, createEtcd},
		{"LoadEtcdPKI", true, false, loadEtcd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := testConfig(t, root, t0, nil)
			dir := cfg.Dir
			switch {
			case tt.etcd:
				cfg = etcdConfig(t, filepath.Join(root, "etcd"), nil)
				dir = cfg.Dir
				if err := createEtcd(cfg); err != nil {
					t.Fatal(err)
				}
			case tt.serving:
				cfg.Dir, cfg.ServingDir = filepath.Join(root, "shared"), dir
				fallthrough
			default:
				mustPopulate(t, cfg)
			}
			mustGiveAway(t, dir)
			before := snapshot(t, root)

			err := tt.call(cfg)
			want := fmt.Sprintf("pki dir %s belongs to uid %d, not to this user (uid %d)", dir, otherUID, os.Geteuid())
			wantErrContaining(t, err, want)
			if !errors.Is(err, pki.ErrOtherOwner) {
				t.Errorf("error %v does not match ErrOtherOwner", err)
			}
			if got := changedFiles(before, snapshot(t, root)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}

// How a test gives a file in a pki dir to another user.
var (
	// chownFile: the file itself belongs to otherUID (mode unchanged).
	chownFile = func(tb testing.TB, path string) { mustGiveAway(tb, path) }
	// foreignLink: the name is a symlink of otherUID's, to the file (still
	// this user's) moved aside in the same directory.
	foreignLink = func(tb testing.TB, path string) {
		tb.Helper()
		real := path + ".real"
		if err := os.Rename(path, real); err != nil {
			tb.Fatal(err)
		}
		if err := os.Symlink(real, path); err != nil {
			tb.Fatal(err)
		}
		mustGiveAway(tb, path)
	}
	// linkToForeign: the name is a symlink of this user's, to a file of
	// otherUID's elsewhere.
	linkToForeign = func(tb testing.TB, path string) {
		tb.Helper()
		target := filepath.Join(tb.TempDir(), filepath.Base(path))
		if err := os.Rename(path, target); err != nil {
			tb.Fatal(err)
		}
		mustGiveAway(tb, target)
		if err := os.Symlink(target, path); err != nil {
			tb.Fatal(err)
		}
	}
)

// TestPKIFileOfAnotherUserRefused: a file kubesim reads from a pki dir
// (certificate, key, token file, service account key, lock file, etcd
// PKI file), or a symlink standing for it, that belongs to another user
// is refused, with the file, the owner and the way out named; whether
// it is found by the checks before use (Load, CreateEtcdPKI,
// LoadEtcdPKI) or when it is read later (Token, ClientCert,
// ServiceAccountKey after a Load that found everything in order).
func TestPKIFileOfAnotherUserRefused(t *testing.T) {
	skipUnlessRoot(t)
	loadThen := func(use func(*pki.Authority) error) func(*testing.T, *pki.Config, func()) error {
		return func(t *testing.T, cfg *pki.Config, change func()) error {
			a := mustLoad(t, cfg)
			change()
			return use(a)
		}
	}
	changeThen := func(call func(*pki.Config) error) func(*testing.T, *pki.Config, func()) error {
		return func(_ *testing.T, cfg *pki.Config, change func()) error {
			change()
			return call(cfg)
		}
	}
	token := loadThen(func(a *pki.Authority) error { _, err := a.Token(pki.Node("n1")); return err })
	clientCert := loadThen(func(a *pki.Authority) error { _, _, err := a.ClientCert(pki.Admin()); return err })
	saKey := loadThen(func(a *pki.Authority) error { _, err := a.ServiceAccountKey(); return err })
	tests := []struct {
		name   string
		etcd   bool
		file   string
		change func(testing.TB, string)
		call   func(*testing.T, *pki.Config, func()) error
	}{
		{"Load tokens.csv", false, "tokens.csv", chownFile, changeThen(load)},
		{"Load ca.crt", false, "ca.crt", chownFile, changeThen(load)},
		{"Load ca.key", false, "ca.key", chownFile, changeThen(load)},
		{"Load apiserver.crt", false, "apiserver.crt", chownFile, changeThen(load)},
		{"Load admin.crt", false, "admin.crt", chownFile, changeThen(load)},
		{"Load sa.key", false, "sa.key", chownFile, changeThen(load)},
		{"Load lock file", false, pki.LockFileName, chownFile, changeThen(load)},
		{"Load tokens.csv link of another user", false, "tokens.csv", foreignLink, changeThen(load)},
		{"Load ca.crt link to a file of another user", false, "ca.crt", linkToForeign, changeThen(load)},
		{"Token tokens.csv", false, "tokens.csv", chownFile, token},
		{"Token tokens.csv link of another user", false, "tokens.csv", foreignLink, token},
		{"Token lock file", false, pki.LockFileName, chownFile, token},
		{"ClientCert admin.crt", false, "admin.crt", chownFile, clientCert},
		{"ClientCert admin.key link to a file of another user", false, "admin.key", linkToForeign, clientCert},
		{"ServiceAccountKey sa.key", false, "sa.key", chownFile, saKey},
		{"CreateEtcdPKI ca.crt", true, "ca.crt", chownFile, changeThen(createEtcd)},
		{"CreateEtcdPKI server.crt", true, "server.crt", chownFile, changeThen(createEtcd)},
		{"CreateEtcdPKI peer.key link of another user", true, "peer.key", foreignLink, changeThen(createEtcd)},
		{"LoadEtcdPKI server.key", true, "server.key", chownFile, changeThen(loadEtcd)},
		{"LoadEtcdPKI ca.crt link to a file of another user", true, "ca.crt", linkToForeign, changeThen(loadEtcd)},
		{"LoadEtcdPKI apiserver-etcd-client.crt", true, "apiserver-etcd-client.crt", chownFile, changeThen(loadEtcd)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := testConfig(t, root, t0, nil)
			if tt.etcd {
				cfg = etcdConfig(t, filepath.Join(root, "etcd"), nil)
				if err := createEtcd(cfg); err != nil {
					t.Fatal(err)
				}
			} else {
				mustPopulate(t, cfg)
			}
			path := filepath.Join(cfg.Dir, tt.file)
			var before map[string]string
			err := tt.call(t, cfg, func() {
				tt.change(t, path)
				before = snapshot(t, root)
			})
			if !errors.Is(err, pki.ErrOtherOwner) {
				t.Fatalf("error = %v, want ErrOtherOwner", err)
			}
			for _, want := range []string{path + " ", fmt.Sprintf("uid %d", otherUID), "chown", "remove " + cfg.Dir} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q has more than one line", err)
			}
			if got := changedFiles(before, snapshot(t, root)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}

// TestCertificateWritableByOthersRefused: a certificate that group or
// others may write could hold anything (etcd trusts the ca.crt it is
// given, with no key to match it against); it is refused as a secret
// open to them is, and its mode left as it is.
func TestCertificateWritableByOthersRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not enforced on Windows")
	}
	tests := []struct {
		name string
		etcd bool
		file string
		mode fs.FileMode
		call func(*pki.Config) error
	}{
		{"Load ca.crt", false, "ca.crt", 0o666, load},
		{"Load admin.crt", false, "admin.crt", 0o646, load},
		{"Load apiserver.crt", false, "apiserver.crt", 0o664, load},
		{"CreateEtcdPKI ca.crt", true, "ca.crt", 0o664, createEtcd},
		{"LoadEtcdPKI ca.crt", true, "ca.crt", 0o666, loadEtcd},
		{"LoadEtcdPKI server.crt", true, "server.crt", 0o646, loadEtcd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cfg := testConfig(t, root, t0, nil)
			if tt.etcd {
				cfg = etcdConfig(t, filepath.Join(root, "etcd"), nil)
				if err := createEtcd(cfg); err != nil {
					t.Fatal(err)
				}
			} else {
				mustPopulate(t, cfg)
			}
			path := filepath.Join(cfg.Dir, tt.file)
			mustChmod(t, path, tt.mode)
			before := snapshot(t, root)

			err := tt.call(cfg)
			if !errors.Is(err, pki.ErrInsecurePermissions) {
				t.Fatalf("error = %v, want ErrInsecurePermissions", err)
			}
			for _, want := range []string{path + " ", "chmod 644"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not mention %q", err, want)
				}
			}
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != tt.mode {
				t.Errorf("mode changed to %v (%v), want it left at %v", fi.Mode().Perm(), err, tt.mode)
			}
			if got := changedFiles(before, snapshot(t, root)); len(got) > 0 {
				t.Errorf("files changed: %q", got)
			}
		})
	}
}
