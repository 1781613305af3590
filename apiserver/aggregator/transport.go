package aggregator

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"time"

	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// ServerName is the name the aggregator expects in the serving certificate
// of an APIService's backend: <service>.<namespace>.svc, as upstream.
func ServerName(ref *apiregv1.ServiceReference) string {
	return ref.Name + "." + ref.Namespace + ".svc"
}

// backendTransport returns the transport to the backend of a (which has a
// spec.service), configured as upstream's: the backend's certificate is
// verified against spec.caBundle (or not at all with
// insecureSkipTLSVerify) for the name ServerName, and the aggregator
// presents its proxy client certificate (if it has one), which the
// backend checks against its requestheader CA before it trusts the
// X-Remote-* headers. A caBundle without a certificate is an error.
func backendTransport(a *apiregv1.APIService, clientCert *tls.Certificate) (*http.Transport, error) {
	tc := &tls.Config{
		MinVersion:         tls.VersionTLS12,
		ServerName:         ServerName(a.Spec.Service),
		InsecureSkipVerify: a.Spec.InsecureSkipTLSVerify, //nolint:gosec // as the APIService asks
	}
	if len(a.Spec.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(a.Spec.CABundle) {
			return nil, errors.New("unable to load root certificates: spec.caBundle holds no PEM certificate")
		}
		tc.RootCAs = pool
	}
	if clientCert != nil {
		tc.Certificates = []tls.Certificate{*clientCert}
	}
	return &http.Transport{
		TLSClientConfig:     tc,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     90 * time.Second,
		MaxIdleConnsPerHost: 25,
	}, nil
}
