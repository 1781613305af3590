package pki

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"strings"
	"time"
)

// CACommonName is the CA's subject, the name kubeadm gives its cluster CA.
const CACommonName = "kubernetes"

// ServingCommonName is the serving certificate's subject, as with kubeadm.
// Clients check the subject alternative names, not this.
const ServingCommonName = "kube-apiserver"

// backdate is subtracted from NotBefore so that a machine whose clock is a
// little behind still accepts a certificate just made.
const backdate = 5 * time.Minute

// keyPair is a parsed certificate with its private key and both PEM forms
// as stored.
type keyPair struct {
	cert    *x509.Certificate
	key     crypto.Signer
	certPEM []byte
	keyPEM  []byte
}

// tlsCertificate returns the pair in the form crypto/tls uses.
func (p *keyPair) tlsCertificate() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{p.cert.Raw}, PrivateKey: p.key, Leaf: p.cert}
}

// parsePair parses a PEM certificate and key and checks that they belong
// together. The key may be PKCS#8, SEC 1 (EC) or PKCS#1 (RSA), so a CA made
// by other tools can be used.
func parsePair(certPEM, keyPEM []byte) (*keyPair, error) {
	tc, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	leaf := tc.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(tc.Certificate[0]); err != nil {
			return nil, err
		}
	}
	signer, ok := tc.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private key of type %T cannot sign", tc.PrivateKey)
	}
	return &keyPair{cert: leaf, key: signer, certPEM: certPEM, keyPEM: keyPEM}, nil
}

// newSerial returns a random positive 127-bit serial number.
func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	return n.Add(n, big.NewInt(1)), nil
}

// sign creates a certificate from tmpl for a new P-256 key, signed by
// parent (self-signed when parent is nil).
func sign(tmpl *x509.Certificate, parent *keyPair) (*keyPair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	if tmpl.SerialNumber, err = newSerial(); err != nil {
		return nil, err
	}
	issuer, signer := tmpl, crypto.Signer(key)
	if parent != nil {
		issuer, signer = parent.cert, parent.key
		if tmpl.NotAfter.After(parent.cert.NotAfter) {
			tmpl.NotAfter = parent.cert.NotAfter
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, issuer, key.Public(), signer)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return parsePair(
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
	)
}

func newCA(now time.Time, validity time.Duration) (*keyPair, error) {
	return sign(&x509.Certificate{
		Subject:               pkix.Name{CommonName: CACommonName},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true, // it signs leaves only
	}, nil)
}

func newServing(ca *keyPair, now time.Time, validity time.Duration, dns []string, ips []net.IP) (*keyPair, error) {
	return sign(&x509.Certificate{
		Subject:               pkix.Name{CommonName: ServingCommonName},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              dns,
		IPAddresses:           ips,
	}, ca)
}

func newClient(ca *keyPair, now time.Time, validity time.Duration, id Identity) (*keyPair, error) {
	return sign(&x509.Certificate{
		Subject:               pkix.Name{CommonName: id.User, Organization: slices.Clone(id.Groups)},
		NotBefore:             now.Add(-backdate).UTC(),
		NotAfter:              now.Add(validity).UTC(),
		KeyUsage:              x509.KeyUsageDigitalSignature,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
	}, ca)
}

// checkCA reports why p cannot serve as the cluster CA at now.
func checkCA(p *keyPair, now time.Time) error {
	c := p.cert
	switch {
	case !c.IsCA || c.KeyUsage&x509.KeyUsageCertSign == 0:
		return errors.New("it is not a CA certificate (needs basic constraints CA:TRUE and key usage certSign)")
	case now.Before(c.NotBefore):
		return fmt.Errorf("it is not valid before %s (is the clock right?)", c.NotBefore.Format(time.RFC3339))
	case !now.Before(c.NotAfter):
		return fmt.Errorf("it expired on %s", c.NotAfter.Format(time.RFC3339))
	}
	return nil
}

// leafStale returns why leaf p must be reissued at now, or "" if it may be
// kept: it must be signed by ca, carry usage, and be valid for more than
// renewBefore.
func leafStale(p *keyPair, ca *keyPair, usage x509.ExtKeyUsage, now time.Time, renewBefore time.Duration) string {
	c := p.cert
	switch {
	case !bytes.Equal(c.RawIssuer, ca.cert.RawSubject) || c.CheckSignatureFrom(ca.cert) != nil:
		return "not signed by the current CA"
	case !slices.Contains(c.ExtKeyUsage, usage):
		return "lacks the needed extended key usage"
	case now.Before(c.NotBefore):
		return "not valid before " + c.NotBefore.Format(time.RFC3339)
	case !now.Before(c.NotAfter):
		return "expired on " + c.NotAfter.Format(time.RFC3339)
	case c.NotAfter.Sub(now) < renewBefore:
		return fmt.Sprintf("expires on %s, less than %s from now", c.NotAfter.Format(time.RFC3339), renewBefore)
	}
	return ""
}

// sanDiff compares the names cert carries with the wanted ones and returns
// a description of the difference, or "" if they are the same set.
func sanDiff(c *x509.Certificate, dns []string, ips []net.IP) string {
	have, want := map[string]bool{}, map[string]bool{}
	for _, n := range c.DNSNames {
		have[sanKey(n, false)] = true
	}
	for _, ip := range c.IPAddresses {
		have[sanKey(ip.String(), true)] = true
	}
	for _, n := range dns {
		want[sanKey(n, false)] = true
	}
	for _, ip := range ips {
		want[sanKey(ip.String(), true)] = true
	}
	var added, removed []string
	for k := range want {
		if !have[k] {
			added = append(added, k)
		}
	}
	for k := range have {
		if !want[k] {
			removed = append(removed, k)
		}
	}
	if len(added) == 0 && len(removed) == 0 {
		return ""
	}
	slices.Sort(added)
	slices.Sort(removed)
	var parts []string
	if len(added) > 0 {
		parts = append(parts, "adds "+strings.Join(added, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "drops "+strings.Join(removed, ", "))
	}
	return "requested names changed: " + strings.Join(parts, "; ")
}
