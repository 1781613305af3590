package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
)

// ServiceAccountKeyFile is the key that signs service account tokens, the
// file kubeadm calls sa.key (kube-apiserver's
// --service-account-signing-key-file and --service-account-key-file).
const ServiceAccountKeyFile = "sa.key"

// ServiceAccountKey returns the key that signs service account tokens: an
// ECDSA P-256 key kept in ServiceAccountKeyFile (PEM "EC PRIVATE KEY",
// mode 0600), made on the first call and read back afterwards, so tokens
// stay valid across restarts on the same directory, and on every API
// server sharing it (the directory's lock makes one key, never two). A
// file with group or other permissions (ErrInsecurePermissions), of
// another user (ErrOtherOwner), or that does not hold a P-256 key, is an
// error.
func (a *Authority) ServiceAccountKey() (*ecdsa.PrivateKey, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	unlock, err := lockDir(a.cfg.Dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := a.path(ServiceAccountKeyFile)
	data, err := readSecret(path)
	switch {
	case err == nil:
		return parseServiceAccountKey(path, data)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pki: service account key: %w", err)
	}
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("pki: service account key: %w", err)
	}
	if err := writeFileAtomic(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), secretMode); err != nil {
		return nil, fmt.Errorf("pki: writing %s: %w", path, err)
	}
	a.cfg.logf("pki: made the service account signing key %s", path)
	return key, nil
}

func parseServiceAccountKey(path string, data []byte) (*ecdsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "EC PRIVATE KEY" {
		return nil, fmt.Errorf("pki: %s: no EC PRIVATE KEY PEM block", path)
	}
	key, err := x509.ParseECPrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("pki: %s: %w", path, err)
	}
	if key.Curve != elliptic.P256() {
		return nil, fmt.Errorf("pki: %s: the service account key must be a P-256 key", path)
	}
	return key, nil
}
