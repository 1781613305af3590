package apiserver

import (
	"crypto/tls"
	"time"

	"github.com/kubesim/kubesim/apiserver/aggregator"
)

// AggregatorConfig configures the aggregator of the delegation chain. The
// zero value proxies nothing: without a Resolver every remote APIService
// is Available=False, reason ServiceNotFound.
type AggregatorConfig struct {
	// ProxyClientCert is the client certificate the aggregator presents to
	// the backends of remote APIServices (kube-apiserver's
	// --proxy-client-cert-file). Nil presents none.
	ProxyClientCert *tls.Certificate
	// Resolver finds the address of a remote APIService's Service. kubesim
	// has no Services yet: the assembler fills an
	// aggregator.StaticResolver. Nil resolves nothing.
	Resolver aggregator.Resolver
	// ProbePeriod is how often the availability of every remote
	// APIService is checked again, besides on every change (0:
	// aggregator.DefaultProbePeriod, upstream's 30 s).
	ProbePeriod time.Duration
}
