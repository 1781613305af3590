package pki

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
)

// The etcd CA's subject, and the API server's client certificate for
// etcd, as kubeadm names them.
const (
	EtcdCACommonName     = "etcd-ca"
	EtcdServerCommonName = "kube-etcd"
	EtcdPeerCommonName   = "kube-etcd-peer"
	EtcdClientCommonName = "kube-apiserver-etcd-client"
)

// File names inside an etcd PKI directory (kubeadm's etcd/ layout, with
// the API server's client pair beside them).
const (
	EtcdServerCertFile = "server.crt"
	EtcdServerKeyFile  = "server.key"
	EtcdPeerCertFile   = "peer.crt"
	EtcdPeerKeyFile    = "peer.key"
	EtcdClientCertFile = "apiserver-etcd-client.crt"
	EtcdClientKeyFile  = "apiserver-etcd-client.key"
)

// EtcdFiles are the paths of an etcd PKI directory's files.
type EtcdFiles struct {
	Dir string
	// CA signs every certificate here; members trust only it, on the
	// client port and the peer port.
	CACert string
	// Server is what a member shows its clients; Peer is what it shows
	// (and presents as a client to) the other members.
	ServerCert, ServerKey string
	PeerCert, PeerKey     string
	// Client is the API server's certificate for etcd
	// (--etcd-certfile, --etcd-keyfile).
	ClientCert, ClientKey string
}

// EtcdFilesIn returns the paths of the files in dir; it reads nothing.
func EtcdFilesIn(dir string) EtcdFiles {
	p := func(name string) string { return filepath.Join(dir, name) }
	return EtcdFiles{Dir: dir, CACert: p(CACertFile),
		ServerCert: p(EtcdServerCertFile), ServerKey: p(EtcdServerKeyFile),
		PeerCert: p(EtcdPeerCertFile), PeerKey: p(EtcdPeerKeyFile),
		ClientCert: p(EtcdClientCertFile), ClientKey: p(EtcdClientKeyFile)}
}

// CreateEtcdPKI makes, in cfg.Dir, a CA for etcd (apart from any
// cluster's CA, as kubeadm keeps one) and the three pairs it signs: the
// members' serving and peer certificates, for the loopback names and
// cfg.Hosts, each usable for server and client authentication as etcd
// needs; and the API server's client certificate. What is there already
// and still good is kept (the CA always); a leaf that is stale or names
// other hosts is issued again. Every member of a cluster uses the same
// directory (copy it to the other machines). logf, from cfg, gets one
// line per file written. The directory and the files in it are checked
// first, and the directory's mode tightened, as Load does.
func CreateEtcdPKI(cfg *Config) (EtcdFiles, error) {
	if err := cfg.Validate(); err != nil {
		return EtcdFiles{}, err
	}
	files := EtcdFilesIn(cfg.Dir)
	if err := claimDir(cfg.Dir, cfg.logf); err != nil {
		return files, err
	}
	if err := checkFiles(cfg.Dir); err != nil {
		return files, err
	}
	a := &Authority{cfg: *cfg}
	if err := a.loadEtcdCA(); err != nil {
		return files, err
	}
	dns, ips := cfg.servingNames()
	both := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	leaves := []struct {
		cn, cert, key string
		usage         []x509.ExtKeyUsage
		dns           []string
		ips           []net.IP
	}{
		{EtcdServerCommonName, files.ServerCert, files.ServerKey, both, dns, ips},
		{EtcdPeerCommonName, files.PeerCert, files.PeerKey, both, dns, ips},
		{EtcdClientCommonName, files.ClientCert, files.ClientKey, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil, nil},
	}
	for _, l := range leaves {
		if err := a.ensureEtcdLeaf(l.cn, l.cert, l.key, l.usage, l.dns, l.ips); err != nil {
			return files, err
		}
	}
	return files, nil
}

// loadEtcdCA is loadCA for the etcd CA's subject: the same rules (kept
// as it is, never replaced behind the user's back).
func (a *Authority) loadEtcdCA() error {
	_, certErr := os.Stat(a.path(CACertFile))
	_, keyErr := os.Stat(a.path(CAKeyFile))
	if errors.Is(certErr, fs.ErrNotExist) && errors.Is(keyErr, fs.ErrNotExist) {
		now := a.cfg.now()
		p, err := sign(&x509.Certificate{
			Subject:               pkix.Name{CommonName: EtcdCACommonName},
			NotBefore:             now.Add(-backdate).UTC(),
			NotAfter:              now.Add(a.cfg.CAValidity).UTC(),
			KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
			BasicConstraintsValid: true,
			IsCA:                  true,
			MaxPathLenZero:        true,
		}, nil)
		if err != nil {
			return fmt.Errorf("pki: create etcd CA: %w", err)
		}
		if err := writePair(p, a.path(CACertFile), a.path(CAKeyFile)); err != nil {
			return err
		}
		a.cfg.logf("pki: created etcd CA %s (CN %q)", a.path(CACertFile), EtcdCACommonName)
		a.ca = p
		return nil
	}
	return a.loadCA()
}

// ensureEtcdLeaf keeps the pair at certPath/keyPath when it is signed by
// the CA, carries usage, is not close to expiry and names dns and ips;
// otherwise it issues a new one.
func (a *Authority) ensureEtcdLeaf(cn, certPath, keyPath string, usage []x509.ExtKeyUsage, dns []string, ips []net.IP) error {
	now := a.cfg.now()
	reason := "missing"
	p, bad, err := readPair(certPath, keyPath)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("pki: %s: %w", certPath, err)
	case bad != nil:
		reason = "unusable: " + bad.Error()
	default:
		reason = ""
		for _, u := range usage {
			if reason == "" {
				reason = leafStale(p, a.ca, u, now, a.cfg.RenewBefore)
			}
		}
		if reason == "" {
			reason = sanDiff(p.cert, dns, ips)
		}
	}
	if reason == "" {
		return nil
	}
	p, err = sign(&x509.Certificate{
		Subject:               pkix.Name{CommonName: cn},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(a.cfg.ServingValidity).UTC(),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           usage,
		BasicConstraintsValid: true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}, a.ca)
	if err != nil {
		return fmt.Errorf("pki: issue %s: %w", certPath, err)
	}
	if err := writePair(p, certPath, keyPath); err != nil {
		return err
	}
	if reason == "missing" {
		a.cfg.logf("pki: issued %s (CN %q)", certPath, cn)
	} else {
		a.cfg.logf("pki: issued %s (CN %q; previous one %s)", certPath, cn, reason)
	}
	return nil
}

// LoadEtcdPKI checks that dir holds what CreateEtcdPKI makes and returns
// the paths. It changes nothing: dir must be a directory of this user that
// group and others cannot write (ErrOtherOwner, ErrInsecurePermissions),
// and every certificate and key in it must be this user's, checked as
// Load checks them. A missing file is an error that matches fs.ErrNotExist
// and says how to make it.
func LoadEtcdPKI(dir string) (EtcdFiles, error) {
	files := EtcdFilesIn(dir)
	missing := func(f string) error {
		return fmt.Errorf("pki: %s is missing (run `kubesim etcd certs --pki-dir %s` once, then give every member that directory): %w", f, dir, fs.ErrNotExist)
	}
	if err := checkDir(dir); errors.Is(err, fs.ErrNotExist) {
		return files, missing(dir)
	} else if err != nil {
		return files, err
	}
	for _, f := range []string{files.CACert, files.ServerCert, files.ServerKey, files.PeerCert, files.PeerKey} {
		if _, err := os.Stat(f); errors.Is(err, fs.ErrNotExist) {
			return files, missing(f)
		} else if err != nil {
			return files, fmt.Errorf("pki: %w", err)
		}
	}
	if err := checkFiles(dir); err != nil {
		return files, err
	}
	return files, nil
}
