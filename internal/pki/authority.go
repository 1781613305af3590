package pki

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Authority is the cluster's CA with the credentials it has issued, backed
// by the files in Config.Dir (and the serving pair in Config.ServingDir).
// It is safe for concurrent use. Several processes may share Dir: every
// read-then-write of a file there holds the directory's lock
// (LockFileName), and what one process added (a token, a client
// certificate) is found by the others' next call for it. ServingDir must
// belong to one process.
type Authority struct {
	cfg     Config
	ca      *keyPair
	serving *keyPair

	mu      sync.Mutex
	clients map[string]*keyPair // by user name
	tokens  []TokenEntry        // in file order
}

// Load returns the Authority kept in cfg.Dir, creating what is missing:
// the directory, the CA, the serving certificate, and tokens for Admin,
// Scheduler and Student. Files that exist are reused byte for byte, except
// a serving certificate that is stale (see the package doc), which is
// replaced, keeping the CA.
//
// Before anything in them is read or written, Dir and ServingDir must be
// directories of this user (ErrOtherOwner otherwise); any group or other
// permission on them is taken away, and Logf told (a shared directory,
// sticky bit, is refused). Load then fails, changing nothing, when a file
// it reads there (certificate, private key, token file, lock file, or a
// symlink standing for one) belongs to another user (ErrOtherOwner), when
// a private key (*.key) or the token file has group or other permissions
// or a certificate (*.crt) is writable by them (ErrInsecurePermissions),
// or when the CA is incomplete, unreadable or expired.
func Load(cfg *Config) (*Authority, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &Authority{cfg: *cfg, clients: map[string]*keyPair{}}
	a.cfg.Hosts = slices.Clone(cfg.Hosts)
	for _, dir := range []string{a.cfg.Dir, a.servingDir()} {
		if err := claimDir(dir, a.cfg.logf); err != nil {
			return nil, err
		}
	}
	// Another process sharing Dir may be creating it: wait for it, then
	// find its files.
	unlock, err := lockDir(a.cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for _, dir := range []string{a.cfg.Dir, a.servingDir()} {
		if err := checkFiles(dir); err != nil {
			return nil, err
		}
	}
	if err := a.loadCA(); err != nil {
		return nil, err
	}
	if err := a.loadServing(); err != nil {
		return nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range standardIdentities() {
		if _, err := a.tokenLocked(id); err != nil {
			return nil, err
		}
	}
	return a, nil
}

func (a *Authority) path(name string) string { return filepath.Join(a.cfg.Dir, name) }

// servingDir is where the serving pair lives: Config.ServingDir, or Dir.
func (a *Authority) servingDir() string {
	if a.cfg.ServingDir != "" {
		return a.cfg.ServingDir
	}
	return a.cfg.Dir
}

// readPair reads a certificate and its key. Missing files give an error
// matching fs.ErrNotExist; I/O and permission problems other errors; a
// parse or mismatch problem is returned separately as bad, since such a
// pair can simply be replaced.
func readPair(certPath, keyPath string) (p *keyPair, bad, err error) {
	keyPEM, err := readSecret(keyPath)
	if err != nil {
		return nil, nil, err
	}
	certPEM, err := readChecked(certPath, kindCert)
	if err != nil {
		return nil, nil, err
	}
	p, bad = parsePair(certPEM, keyPEM)
	return p, bad, nil
}

// writePair stores p, key first: a crash in between leaves a pair that no
// longer matches, which the next Load notices.
func writePair(p *keyPair, certPath, keyPath string) error {
	if err := writeFileAtomic(keyPath, p.keyPEM, secretMode); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if err := writeFileAtomic(certPath, p.certPEM, certMode); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

func (a *Authority) loadCA() error {
	certPath, keyPath := a.path(CACertFile), a.path(CAKeyFile)
	now := a.cfg.now()
	p, bad, err := readPair(certPath, keyPath)
	if errors.Is(err, fs.ErrNotExist) {
		_, certErr := os.Stat(certPath)
		_, keyErr := os.Stat(keyPath)
		if !errors.Is(certErr, fs.ErrNotExist) || !errors.Is(keyErr, fs.ErrNotExist) {
			return fmt.Errorf("pki: only one of %s and %s exists: restore the other, or remove both to create a new CA (kubeconfigs made with the old one stop working)", certPath, keyPath)
		}
		if p, err = newCA(now, a.cfg.CAValidity); err != nil {
			return fmt.Errorf("pki: create CA: %w", err)
		}
		if err := writePair(p, certPath, keyPath); err != nil {
			return err
		}
		a.cfg.logf("pki: created CA %s (CN %q, valid until %s)", certPath, p.cert.Subject.CommonName, p.cert.NotAfter.Format("2006-01-02"))
		a.ca = p
		return nil
	}
	if err != nil {
		return fmt.Errorf("pki: CA: %w", err)
	}
	if bad != nil {
		return fmt.Errorf("pki: CA in %s and %s: %w; fix them, or remove both to create a new CA", certPath, keyPath, bad)
	}
	if err := checkCA(p, now); err != nil {
		return fmt.Errorf("pki: CA %s cannot be used: %v; remove %s and %s to create a new one", certPath, err, certPath, keyPath)
	}
	if left := p.cert.NotAfter.Sub(now); left < a.cfg.RenewBefore {
		a.cfg.logf("pki: warning: CA %s expires on %s; remove %s and %s to create a new one", certPath, p.cert.NotAfter.Format("2006-01-02"), certPath, keyPath)
	}
	a.ca = p
	return nil
}

func (a *Authority) loadServing() error {
	certPath, keyPath := filepath.Join(a.servingDir(), ServingCertFile), filepath.Join(a.servingDir(), ServingKeyFile)
	now := a.cfg.now()
	dns, ips := a.cfg.servingNames()
	var reason string
	p, bad, err := readPair(certPath, keyPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		reason = "missing"
	case err != nil:
		return fmt.Errorf("pki: serving certificate: %w", err)
	case bad != nil:
		reason = "unusable: " + bad.Error()
	default:
		if reason = leafStale(p, a.ca, x509.ExtKeyUsageServerAuth, now, a.cfg.RenewBefore); reason == "" {
			reason = sanDiff(p.cert, dns, ips)
		}
	}
	if reason == "" {
		a.serving = p
		return nil
	}
	if p, err = newServing(a.ca, now, a.cfg.ServingValidity, dns, ips); err != nil {
		return fmt.Errorf("pki: issue serving certificate: %w", err)
	}
	if err := writePair(p, certPath, keyPath); err != nil {
		return err
	}
	if reason == "missing" {
		a.cfg.logf("pki: issued serving certificate %s", certPath)
	} else {
		a.cfg.logf("pki: issued serving certificate %s (previous one %s)", certPath, reason)
	}
	a.serving = p
	return nil
}

// Dir returns the directory the Authority keeps its files in.
func (a *Authority) Dir() string { return a.cfg.Dir }

// SigningFiles returns the paths of the CA's certificate and key, which
// kubeadm gives kube-controller-manager's --cluster-signing-cert-file and
// --cluster-signing-key-file: the certificates its CSR signers issue are
// then trusted by the API server as client certificates.
func (a *Authority) SigningFiles() (certFile, keyFile string) {
	return a.path(CACertFile), a.path(CAKeyFile)
}

// CACertPEM returns the CA certificate in PEM form, as stored in ca.crt.
// The caller may modify the returned slice.
func (a *Authority) CACertPEM() []byte { return bytes.Clone(a.ca.certPEM) }

// CAPool returns a new pool holding only the CA certificate, for clients
// verifying the API server and servers verifying clients.
func (a *Authority) CAPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(a.ca.cert)
	return pool
}

// ServingTLSConfig returns a new TLS configuration for the API server: the
// serving certificate, TLS 1.2 or later, ALPN offering h2 before http/1.1,
// and client certificates verified against the CA when a client sends one
// (tls.VerifyClientCertIfGiven: token and anonymous clients still connect).
// An http.Server serving on a listener with this configuration speaks
// HTTP/2 to clients that negotiate it. Verified chains arrive in
// Request.TLS.VerifiedChains; mapping them to a user is the caller's job.
func (a *Authority) ServingTLSConfig() *tls.Config {
	return &tls.Config{
		Certificates: []tls.Certificate{a.serving.tlsCertificate()},
		MinVersion:   tls.VersionTLS12,
		NextProtos:   []string{"h2", "http/1.1"},
		ClientCAs:    a.CAPool(),
		ClientAuth:   tls.VerifyClientCertIfGiven,
	}
}

// ClientCert returns a client certificate (ExtKeyUsage ClientAuth, CN the
// user, O the groups) and its private key for id, both PEM. The first call
// for a user issues them into <user>.crt and <user>.key (':' in the user
// name becomes '-'); later calls, in this process or after a restart,
// return the stored pair unchanged unless it is stale: close to expiry,
// not signed by the CA, or made for other groups, in which case a new pair
// replaces it. Two users whose names map to the same file are an error.
// The caller may modify the returned slices.
func (a *Authority) ClientCert(id Identity) (certPEM, keyPEM []byte, err error) {
	if err := id.validate(); err != nil {
		return nil, nil, err
	}
	base, err := fileBase(id.User)
	if err != nil {
		return nil, nil, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if p, ok := a.clients[id.User]; ok && sameGroups(p.cert.Subject.Organization, id.Groups) {
		return bytes.Clone(p.certPEM), bytes.Clone(p.keyPEM), nil
	}
	unlock, err := lockDir(a.cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	defer unlock()
	certPath, keyPath := a.path(base+".crt"), a.path(base+".key")
	now := a.cfg.now()
	var reason string
	p, bad, err := readPair(certPath, keyPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		reason = "missing"
	case err != nil:
		return nil, nil, fmt.Errorf("pki: client certificate for %q: %w", id.User, err)
	case bad != nil:
		reason = "unusable: " + bad.Error()
	case p.cert.Subject.CommonName != id.User:
		return nil, nil, fmt.Errorf("pki: client certificate %s belongs to %q, not %q: the two names share a file name", certPath, p.cert.Subject.CommonName, id.User)
	default:
		if reason = leafStale(p, a.ca, x509.ExtKeyUsageClientAuth, now, a.cfg.RenewBefore); reason == "" && !sameGroups(p.cert.Subject.Organization, id.Groups) {
			reason = fmt.Sprintf("made for groups %q, now %q", p.cert.Subject.Organization, id.Groups)
		}
	}
	if reason != "" {
		if p, err = newClient(a.ca, now, a.cfg.ClientValidity, id); err != nil {
			return nil, nil, fmt.Errorf("pki: issue client certificate for %q: %w", id.User, err)
		}
		if err := writePair(p, certPath, keyPath); err != nil {
			return nil, nil, err
		}
		if reason == "missing" {
			a.cfg.logf("pki: issued client certificate %s for %q", certPath, id.User)
		} else {
			a.cfg.logf("pki: issued client certificate %s for %q (previous one %s)", certPath, id.User, reason)
		}
	}
	a.clients[id.User] = p
	return bytes.Clone(p.certPEM), bytes.Clone(p.keyPEM), nil
}
