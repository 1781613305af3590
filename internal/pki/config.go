package pki

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
)

// Defaults used by NewConfig.
const (
	// DefaultCAValidity is the lifetime of a new CA: ten years, as kubeadm.
	DefaultCAValidity = 10 * 365 * 24 * time.Hour
	// DefaultServingValidity is the lifetime of a new serving certificate.
	DefaultServingValidity = 365 * 24 * time.Hour
	// DefaultClientValidity is the lifetime of a new client certificate.
	DefaultClientValidity = 365 * 24 * time.Hour
	// DefaultRenewBefore is how close to its expiry a serving or client
	// certificate may be before Load (or ClientCert) issues a new one.
	DefaultRenewBefore = 30 * 24 * time.Hour
)

// Config says where the credentials live and what the serving certificate
// must cover.
type Config struct {
	// Dir holds every file this package writes. It is created 0700 if
	// missing; one that exists must belong to this user, and loses any
	// group or other permission (see the package doc).
	Dir string
	// ServingDir, when set, holds the serving certificate and key
	// (apiserver.crt, apiserver.key) instead of Dir: API servers that
	// share Dir (one CA, one service account key, one token file) each
	// serve their own certificate, naming their own address. It is
	// created, or checked, as Dir is.
	ServingDir string
	// Hosts are extra subject alternative names for the serving
	// certificate, IP addresses or DNS names, on top of localhost,
	// 127.0.0.1 and ::1 (always present). Put the bind address here when it
	// is not loopback; an unspecified address (0.0.0.0, ::) is refused,
	// since no client dials it.
	Hosts []string
	// Now is the clock used for validity periods. Nil means time.Now.
	Now func() time.Time
	// CAValidity, ServingValidity and ClientValidity are the lifetimes of
	// newly issued certificates. A leaf never outlives the CA.
	CAValidity      time.Duration
	ServingValidity time.Duration
	ClientValidity  time.Duration
	// RenewBefore is the remaining lifetime below which a serving or client
	// certificate is reissued. It must be shorter than both leaf lifetimes.
	RenewBefore time.Duration
	// Logf, if set, receives one line for each file created or replaced and
	// why, for each directory whose mode was tightened, and warnings (a CA
	// close to expiry). Nil discards them. It is
	// called with the Authority's lock held, one call at a time, and must
	// not call back into the Authority.
	Logf func(format string, args ...any)
}

// NewConfig returns the defaults for a cluster whose data dir is dataDir:
// credentials in dataDir/pki, no extra hosts, the real clock.
func NewConfig(dataDir string) *Config {
	return &Config{
		Dir:             filepath.Join(dataDir, "pki"),
		Now:             time.Now,
		CAValidity:      DefaultCAValidity,
		ServingValidity: DefaultServingValidity,
		ClientValidity:  DefaultClientValidity,
		RenewBefore:     DefaultRenewBefore,
	}
}

// Validate reports the first problem with c.
func (c *Config) Validate() error {
	switch {
	case c.Dir == "":
		return errors.New("pki: dir is empty")
	case c.CAValidity <= 0 || c.ServingValidity <= 0 || c.ClientValidity <= 0:
		return errors.New("pki: certificate validity periods must be positive")
	case c.RenewBefore < 0:
		return errors.New("pki: renew-before must not be negative")
	case c.RenewBefore >= c.ServingValidity || c.RenewBefore >= c.ClientValidity:
		return fmt.Errorf("pki: renew-before %s must be shorter than the serving (%s) and client (%s) validity, or every start would reissue", c.RenewBefore, c.ServingValidity, c.ClientValidity)
	}
	for _, h := range c.Hosts {
		if err := validateHost(h); err != nil {
			return err
		}
	}
	return nil
}

func validateHost(h string) error {
	if ip := net.ParseIP(h); ip != nil {
		if ip.IsUnspecified() {
			return fmt.Errorf("pki: host %q is the unspecified address, which no client dials; list the machine's addresses instead", h)
		}
		return nil
	}
	// DNS names compare without case; the certificate gets the lower case.
	if errs := validation.IsDNS1123Subdomain(strings.ToLower(h)); len(errs) > 0 {
		return fmt.Errorf("pki: host %q is neither an IP address nor a DNS name: %s", h, strings.Join(errs, "; "))
	}
	return nil
}

// now returns the configured time.
func (c *Config) now() time.Time {
	if c.Now == nil {
		return time.Now()
	}
	return c.Now()
}

func (c *Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// servingNames returns the subject alternative names the serving
// certificate must carry: the loopback names first, then c.Hosts in order,
// without duplicates.
func (c *Config) servingNames() (dns []string, ips []net.IP) {
	seen := map[string]bool{}
	add := func(h string) {
		if ip := net.ParseIP(h); ip != nil {
			if ip4 := ip.To4(); ip4 != nil {
				ip = ip4
			}
			if k := sanKey(ip.String(), true); !seen[k] {
				seen[k] = true
				ips = append(ips, ip)
			}
			return
		}
		if k := sanKey(h, false); !seen[k] {
			seen[k] = true
			dns = append(dns, strings.ToLower(h))
		}
	}
	for _, h := range []string{"localhost", "127.0.0.1", "::1"} {
		add(h)
	}
	for _, h := range c.Hosts {
		add(h)
	}
	return dns, ips
}

func sanKey(name string, isIP bool) string {
	if isIP {
		return "IP:" + name
	}
	return "DNS:" + strings.ToLower(name)
}
