package pki_test

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kubesim/kubesim/internal/pki"
)

// loadShared loads n Authorities at once on one fresh Dir, each with its
// own ServingDir and extra host (as n API servers on 127.0.0.1,
// 127.0.0.2, ... sharing --pki-dir), each as its own "process": its own
// Authority, its own descriptor of the lock file.
func loadShared(t *testing.T, n int) (string, []*pki.Authority) {
	t.Helper()
	root := t.TempDir()
	shared := filepath.Join(root, "shared")
	as := make([]*pki.Authority, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		cfg := testConfig(t, root, t0, nil)
		cfg.Dir = shared
		cfg.ServingDir = filepath.Join(root, fmt.Sprintf("server-%d", i+1), "pki")
		cfg.Hosts = []string{fmt.Sprintf("127.0.0.%d", i+1)}
		wg.Add(1)
		go func() {
			defer wg.Done()
			as[i], errs[i] = pki.Load(cfg)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Load %d: %v", i+1, err)
		}
	}
	return shared, as
}

// TestSharedDirOneCluster: Authorities loading one Dir at the same time
// end up with one CA, one token file and one service account key (none
// made twice), while each serves its own certificate, kept in its
// ServingDir and naming its own host, signed by the shared CA.
func TestSharedDirOneCluster(t *testing.T) {
	const n = 4
	shared, as := loadShared(t, n)
	ca := mustReadFile(t, filepath.Join(shared, pki.CACertFile))
	keys := make([][]byte, n)
	var wg sync.WaitGroup
	for i, a := range as {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if k, err := a.ServiceAccountKey(); err == nil {
				keys[i], _ = x509.MarshalECPrivateKey(k)
			}
		}()
	}
	wg.Wait()
	for i, a := range as {
		if !bytes.Equal(a.CACertPEM(), ca) {
			t.Errorf("authority %d holds another CA than %s", i+1, pki.CACertFile)
		}
		if !slices.EqualFunc(a.Tokens(), as[0].Tokens(), func(x, y pki.TokenEntry) bool { return x.Token == y.Token && x.User == y.User }) {
			t.Errorf("authority %d has tokens %v, authority 1 %v", i+1, a.Tokens(), as[0].Tokens())
		}
		if keys[i] == nil || !bytes.Equal(keys[i], keys[0]) {
			t.Errorf("authority %d has another service account key than authority 1", i+1)
		}
		cert := mustParseCert(t, mustReadFile(t, filepath.Join(filepath.Dir(shared), fmt.Sprintf("server-%d", i+1), "pki", pki.ServingCertFile)))
		if !slices.ContainsFunc(cert.IPAddresses, func(ip net.IP) bool { return ip.Equal(net.ParseIP(fmt.Sprintf("127.0.0.%d", i+1))) }) {
			t.Errorf("serving certificate %d names %v, not 127.0.0.%d", i+1, cert.IPAddresses, i+1)
		}
		pool := as[0].CAPool()
		if _, err := cert.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: t0}); err != nil {
			t.Errorf("serving certificate %d does not verify against the shared CA: %v", i+1, err)
		}
	}
	if files := snapshot(t, shared); files[pki.ServingCertFile] != "" {
		t.Errorf("the shared dir holds a serving certificate; each server's belongs in its ServingDir")
	}
}

// TestSharedDirTokensMerge: a token one Authority adds is the one another
// sharing the directory gets for the same user, and neither loses the
// other's lines.
func TestSharedDirTokensMerge(t *testing.T) {
	_, as := loadShared(t, 2)
	alice := mustToken(t, as[0], pki.Identity{User: "alice"})
	bob := mustToken(t, as[1], pki.Identity{User: "bob"})
	if got := mustToken(t, as[1], pki.Identity{User: "alice"}); got != alice {
		t.Errorf("authority 2's token for alice %q, authority 1 made %q", got, alice)
	}
	if got := mustToken(t, as[0], pki.Identity{User: "bob"}); got != bob {
		t.Errorf("authority 1's token for bob %q, authority 2 made %q", got, bob)
	}
	users := map[string]bool{}
	for _, e := range as[0].Tokens() {
		users[e.User] = true
	}
	if !users["alice"] || !users["bob"] {
		t.Errorf("token file users %v, want alice and bob both", users)
	}
}
