package pki

import (
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
)

// IssueServingCert returns a new serving certificate (ExtKeyUsage
// ServerAuth) signed by the CA, with commonName as its CN and dns and ips
// as its subject alternative names, valid for Config.ServingValidity (and
// never past the CA). It is kept in memory only: nothing is written to
// Dir, and every call makes a new key. It is for a component that serves
// on loopback behind a name of its own (the metrics server, as
// metrics-server.kube-system.svc), which its clients verify against
// CACertPEM.
func (a *Authority) IssueServingCert(commonName string, dns []string, ips []net.IP) (tls.Certificate, error) {
	if len(dns) == 0 && len(ips) == 0 {
		return tls.Certificate{}, errors.New("pki: a serving certificate needs a DNS name or an IP address")
	}
	now := a.cfg.now()
	p, err := sign(&x509.Certificate{
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(a.cfg.ServingValidity).UTC(),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}, a.ca)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("pki: issue serving certificate for %s: %w", commonName, err)
	}
	return p.tlsCertificate(), nil
}
