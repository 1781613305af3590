package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"errors"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	asn1util "k8s.io/apimachinery/pkg/apis/asn1"
)

func TestTokenAuthenticator(t *testing.T) {
	// Tokens of equal length that differ only in their last byte, so a
	// comparison that stopped early would still have to look at all of it.
	authn := NewTokenAuthenticator([]TokenEntry{
		{Token: "", User: User{Name: "empty-token-is-ignored"}},
		{Token: "token-aaaa-0001", User: User{Name: "admin", Groups: []string{GroupMasters}}},
		{Token: "token-aaaa-0002", User: User{Name: "student", UID: "u-2"}},
		{Token: "token-aaaa-0003", User: User{Name: "already", Groups: []string{GroupAuthenticated}}},
		{Token: "token-aaaa-0002", User: User{Name: "shadowed-duplicate"}},
	})
	tests := []struct {
		name       string
		header     string // Authorization header; "" sends none
		wantOK     bool
		wantErr    bool
		wantUser   *User
		wantHeader bool // Authorization header still present afterwards
	}{
		{name: "valid admin token", header: "Bearer token-aaaa-0001", wantOK: true,
			wantUser: &User{Name: "admin", Groups: []string{GroupMasters, GroupAuthenticated}}},
		{name: "valid token, later entry, first duplicate wins", header: "Bearer token-aaaa-0002", wantOK: true,
			wantUser: &User{Name: "student", UID: "u-2", Groups: []string{GroupAuthenticated}}},
		{name: "scheme is case-insensitive", header: "bearer token-aaaa-0002", wantOK: true,
			wantUser: &User{Name: "student", UID: "u-2", Groups: []string{GroupAuthenticated}}},
		{name: "authenticated group not added twice", header: "Bearer token-aaaa-0003", wantOK: true,
			wantUser: &User{Name: "already", Groups: []string{GroupAuthenticated}}},
		{name: "unknown token of same length", header: "Bearer token-aaaa-0009", wantErr: true, wantHeader: true},
		{name: "unknown token, other length", header: "Bearer x", wantErr: true, wantHeader: true},
		{name: "prefix of a token", header: "Bearer token-aaaa-000", wantErr: true, wantHeader: true},
		{name: "no header", header: ""},
		{name: "basic auth is not ours", header: "Basic dXNlcjpwYXNz", wantHeader: true},
		{name: "bearer without token", header: "Bearer", wantHeader: true},
		{name: "bearer with empty token", header: "Bearer  token-aaaa-0001", wantHeader: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api/v1/pods", nil)
			if tt.header != "" {
				r.Header.Set("Authorization", tt.header)
			}
			res, ok, err := authn.AuthenticateRequest(r)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error: %v", err, tt.wantErr)
			}
			if tt.wantErr && err.Error() != "invalid bearer token" {
				t.Errorf("err = %q, want %q", err, "invalid bearer token")
			}
			if ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tt.wantOK)
			}
			if got := r.Header.Get("Authorization") != ""; got != tt.wantHeader {
				t.Errorf("Authorization header present = %v, want %v", got, tt.wantHeader)
			}
			if !tt.wantOK {
				if res != nil {
					t.Errorf("res = %+v, want nil", res)
				}
				return
			}
			if res.Method != MethodToken {
				t.Errorf("method = %q, want %q", res.Method, MethodToken)
			}
			if !reflect.DeepEqual(res.User, tt.wantUser) {
				t.Errorf("user = %+v, want %+v", res.User, tt.wantUser)
			}
		})
	}
}

func TestTokenAuthenticatorCopiesUsers(t *testing.T) {
	entries := []TokenEntry{{Token: "t", User: User{Name: "a", Groups: []string{"g"}}}}
	authn := NewTokenAuthenticator(entries)
	entries[0].User.Groups[0] = "changed"

	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer t")
	res, _, _ := authn.AuthenticateRequest(r)
	res.User.Groups[0] = "changed-too"

	r = httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer t")
	res, _, _ = authn.AuthenticateRequest(r)
	if want := []string{"g", GroupAuthenticated}; !reflect.DeepEqual(res.User.Groups, want) {
		t.Errorf("groups = %v, want %v", res.User.Groups, want)
	}
}

// testCA is a certificate authority made up for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func mustCA(tb testing.TB) *testCA {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "kubesim-test-ca"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

var serial int64 = 100

// mustIssue signs a certificate for subject with the given extended key
// usage (x509.ExtKeyUsageClientAuth for client certificates).
func (ca *testCA) mustIssue(tb testing.TB, subject pkix.Name, usage x509.ExtKeyUsage, hosts ...string) tls.Certificate {
	tb.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      subject,
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     hosts,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		tb.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
}

func TestCertAuthenticatorOverTLS(t *testing.T) {
	ca := mustCA(t)
	other := mustCA(t)
	authn := NewCertAuthenticator()

	type outcome struct {
		res *AuthResult
		ok  bool
		err error
	}
	results := make(chan outcome, 1)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		res, ok, err := authn.AuthenticateRequest(r)
		results <- outcome{res, ok, err}
	}))
	srv.TLS = &tls.Config{
		ClientCAs:    ca.pool,
		ClientAuth:   tls.VerifyClientCertIfGiven,
		Certificates: []tls.Certificate{ca.mustIssue(t, pkix.Name{CommonName: "server"}, x509.ExtKeyUsageServerAuth, "127.0.0.1", "localhost")},
	}
	srv.StartTLS()
	defer srv.Close()

	uidName := pkix.AttributeTypeAndValue{Type: asn1.ObjectIdentifier(asn1util.X509UID()), Value: "uid-42"}
	tests := []struct {
		name       string
		cert       *tls.Certificate
		wantOK     bool
		wantName   string
		wantUID    string
		wantGroups []string
	}{
		{name: "admin cert", cert: ptr(ca.mustIssue(t, pkix.Name{CommonName: "kubernetes-admin", Organization: []string{GroupMasters}}, x509.ExtKeyUsageClientAuth)),
			wantOK: true, wantName: "kubernetes-admin", wantGroups: []string{GroupMasters, GroupAuthenticated}},
		{name: "kubelet cert", cert: ptr(ca.mustIssue(t, pkix.Name{CommonName: "system:node:node-a", Organization: []string{GroupNodes}}, x509.ExtKeyUsageClientAuth)),
			wantOK: true, wantName: "system:node:node-a", wantGroups: []string{GroupNodes, GroupAuthenticated}},
		{name: "no organization", cert: ptr(ca.mustIssue(t, pkix.Name{CommonName: SchedulerUser}, x509.ExtKeyUsageClientAuth)),
			wantOK: true, wantName: SchedulerUser, wantGroups: []string{GroupAuthenticated}},
		{name: "uid attribute", cert: ptr(ca.mustIssue(t, pkix.Name{CommonName: "student", ExtraNames: []pkix.AttributeTypeAndValue{uidName}}, x509.ExtKeyUsageClientAuth)),
			wantOK: true, wantName: "student", wantUID: "uid-42", wantGroups: []string{GroupAuthenticated}},
		{name: "no common name", cert: ptr(ca.mustIssue(t, pkix.Name{Organization: []string{GroupMasters}}, x509.ExtKeyUsageClientAuth))},
		{name: "no client certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool, ServerName: "localhost"}}
			if tt.cert != nil {
				tr.TLSClientConfig.Certificates = []tls.Certificate{*tt.cert}
			}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			got := <-results
			if got.err != nil {
				t.Fatalf("err = %v, want none", got.err)
			}
			if got.ok != tt.wantOK {
				t.Fatalf("ok = %v, want %v", got.ok, tt.wantOK)
			}
			if !tt.wantOK {
				return
			}
			u := got.res.User
			if got.res.Method != MethodX509 || u.Name != tt.wantName || u.UID != tt.wantUID || !reflect.DeepEqual(u.Groups, tt.wantGroups) {
				t.Errorf("got %s user %q uid %q groups %v, want x509 user %q uid %q groups %v",
					got.res.Method, u.Name, u.UID, u.Groups, tt.wantName, tt.wantUID, tt.wantGroups)
			}
			if id := u.Extra[CredentialIDKey]; len(id) != 1 || !strings.HasPrefix(id[0], "X509SHA256=") || len(id[0]) != len("X509SHA256=")+64 {
				t.Errorf("extra %s = %v, want one X509SHA256=<64 hex digits>", CredentialIDKey, id)
			}
		})
	}

	t.Run("certificate from another CA fails the handshake", func(t *testing.T) {
		cert := other.mustIssue(t, pkix.Name{CommonName: "mallory", Organization: []string{GroupMasters}}, x509.ExtKeyUsageClientAuth)
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.pool, ServerName: "localhost", Certificates: []tls.Certificate{cert}}}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("request with a foreign certificate succeeded, want a TLS error")
		}
		select {
		case got := <-results:
			t.Errorf("handler ran with %+v, want no request to reach it", got)
		default:
		}
	})
}

func TestCertAuthenticatorWithoutTLSVerification(t *testing.T) {
	ca := mustCA(t)
	cert := ca.mustIssue(t, pkix.Name{CommonName: "admin", Organization: []string{GroupMasters}}, x509.ExtKeyUsageClientAuth)
	tests := []struct {
		name    string
		state   *tls.ConnectionState
		wantErr bool
	}{
		{name: "plain http", state: nil},
		{name: "tls without client cert", state: &tls.ConnectionState{}},
		{name: "client cert the TLS layer did not verify", state: &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert.Leaf}}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/api", nil)
			r.TLS = tt.state
			res, ok, err := NewCertAuthenticator().AuthenticateRequest(r)
			if ok || res != nil {
				t.Errorf("ok = %v, res = %+v; want not authenticated", ok, res)
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, want error: %v", err, tt.wantErr)
			}
		})
	}
}

func TestUnionAndWithAnonymous(t *testing.T) {
	ca := mustCA(t)
	cert := ca.mustIssue(t, pkix.Name{CommonName: "admin", Organization: []string{GroupMasters}}, x509.ExtKeyUsageClientAuth)
	verified := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert.Leaf}, VerifiedChains: [][]*x509.Certificate{{cert.Leaf, ca.cert}}}
	tokens := NewTokenAuthenticator([]TokenEntry{{Token: "good", User: User{Name: "student"}}})
	authn := WithAnonymous(Union(tokens, NewCertAuthenticator()))

	tests := []struct {
		name       string
		path       string
		token      string
		tls        *tls.ConnectionState
		wantOK     bool
		wantErr    bool
		wantUser   string
		wantMethod Method
	}{
		{name: "token", path: "/api/v1/pods", token: "good", wantOK: true, wantUser: "student", wantMethod: MethodToken},
		{name: "certificate", path: "/api/v1/pods", tls: verified, wantOK: true, wantUser: "admin", wantMethod: MethodX509},
		{name: "token before certificate", path: "/api/v1/pods", token: "good", tls: verified, wantOK: true, wantUser: "student", wantMethod: MethodToken},
		{name: "bad token, valid certificate", path: "/api/v1/pods", token: "bad", tls: verified, wantOK: true, wantUser: "admin", wantMethod: MethodX509},
		{name: "bad token alone fails", path: "/api/v1/pods", token: "bad", wantErr: true},
		{name: "bad token on a health path is not anonymous", path: "/healthz", token: "bad", wantErr: true},
		{name: "no credentials on a health path", path: "/readyz/etcd", wantOK: true, wantUser: Anonymous, wantMethod: MethodAnonymous},
		{name: "no credentials elsewhere is anonymous too", path: "/api/v1/pods", wantOK: true, wantUser: Anonymous, wantMethod: MethodAnonymous},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.token != "" {
				r.Header.Set("Authorization", "Bearer "+tt.token)
			}
			r.TLS = tt.tls
			res, ok, err := authn.AuthenticateRequest(r)
			if (err != nil) != tt.wantErr || ok != tt.wantOK {
				t.Fatalf("ok = %v, err = %v; want ok %v, error %v", ok, err, tt.wantOK, tt.wantErr)
			}
			if !ok {
				return
			}
			if res.User.Name != tt.wantUser || res.Method != tt.wantMethod {
				t.Errorf("got %s by %s, want %s by %s", res.User.Name, res.Method, tt.wantUser, tt.wantMethod)
			}
			if tt.wantUser == Anonymous && !reflect.DeepEqual(res.User.Groups, []string{GroupUnauthenticated}) {
				t.Errorf("anonymous groups = %v, want [%s]", res.User.Groups, GroupUnauthenticated)
			}
		})
	}

	t.Run("errors of all authenticators are returned together", func(t *testing.T) {
		fail := func(msg string) Authenticator {
			return AuthenticatorFunc(func(*http.Request) (*AuthResult, bool, error) { return nil, false, errors.New(msg) })
		}
		_, ok, err := Union(fail("one"), nil, fail("two")).AuthenticateRequest(httptest.NewRequest(http.MethodGet, "/", nil))
		if ok || err == nil || err.Error() != "[one, two]" {
			t.Errorf("ok = %v, err = %v; want not ok and error [one, two]", ok, err)
		}
	})
}

func TestNodeName(t *testing.T) {
	tests := []struct {
		name     string
		user     *User
		wantNode string
		wantOK   bool
	}{
		{"kubelet", &User{Name: "system:node:node-a", Groups: []string{GroupNodes, GroupAuthenticated}}, "node-a", true},
		{"not in system:nodes", &User{Name: "system:node:node-a", Groups: []string{GroupAuthenticated}}, "", false},
		{"other user in system:nodes", &User{Name: "node-a", Groups: []string{GroupNodes}}, "", false},
		{"empty node name", &User{Name: "system:node:", Groups: []string{GroupNodes}}, "", false},
		{"nil", nil, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := NodeName(tt.user)
			if got != tt.wantNode || ok != tt.wantOK {
				t.Errorf("NodeName = %q, %v; want %q, %v", got, ok, tt.wantNode, tt.wantOK)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
