package pki

import (
	"fmt"
	"net/url"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Names used in the kubeconfigs this package builds.
const (
	ClusterName = "kubesim"
	// DefaultNamespace is the context's namespace.
	DefaultNamespace = "default"
)

// ContextName returns the name of id's context and kubeconfig user,
// "kubesim-<user>" (kubesim-admin, kubesim-student): distinct per
// identity, so that kubeconfigs merged with KUBECONFIG=a:b keep every
// user and context (the cluster entry, the same in each, is kept once).
func ContextName(id Identity) string { return ClusterName + "-" + id.User }

// AuthMethod is how a kubeconfig's user proves who it is.
type AuthMethod int

const (
	// ClientCertificate embeds the identity's client certificate and key
	// (client-certificate-data, client-key-data). It is the zero value.
	ClientCertificate AuthMethod = iota
	// BearerToken embeds the identity's token (token).
	BearerToken
)

// String returns the method's name.
func (m AuthMethod) String() string {
	switch m {
	case ClientCertificate:
		return "client certificate"
	case BearerToken:
		return "bearer token"
	}
	return fmt.Sprintf("AuthMethod(%d)", int(m))
}

// Kubeconfig returns a kubeconfig for id reaching the API server at
// serverURL (https://host:port, where host is one of the serving
// certificate's names, else an error). It has one cluster "kubesim" with
// the CA embedded, one user named ContextName(id) authenticated by method
// (issuing the client certificate or token if needed, see ClientCert and
// Token), and one context ContextName(id), the current one, in namespace
// default. Everything is embedded, so the file stands alone.
func (a *Authority) Kubeconfig(serverURL string, id Identity, method AuthMethod) (*clientcmdapi.Config, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return nil, fmt.Errorf("pki: kubeconfig: server URL: %w", err)
	}
	if u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("pki: kubeconfig: server URL %q must be https://host[:port]", serverURL)
	}
	if err := a.serving.cert.VerifyHostname(u.Hostname()); err != nil {
		return nil, fmt.Errorf("pki: kubeconfig: server URL %q: %w; add the host to Config.Hosts", serverURL, err)
	}
	user := &clientcmdapi.AuthInfo{}
	switch method {
	case ClientCertificate:
		if user.ClientCertificateData, user.ClientKeyData, err = a.ClientCert(id); err != nil {
			return nil, err
		}
	case BearerToken:
		if user.Token, err = a.Token(id); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("pki: kubeconfig: unknown %v", method)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ClusterName] = &clientcmdapi.Cluster{Server: serverURL, CertificateAuthorityData: a.CACertPEM()}
	name := ContextName(id)
	cfg.AuthInfos[name] = user
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: ClusterName, AuthInfo: name, Namespace: DefaultNamespace}
	cfg.CurrentContext = name
	return cfg, nil
}

// WriteKubeconfig writes cfg to path in kubeconfig YAML, atomically and
// with mode 0600 (it holds credentials), replacing any file there. A
// missing parent directory is created 0700.
func WriteKubeconfig(path string, cfg *clientcmdapi.Config) error {
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("pki: kubeconfig: %w", err)
	}
	if err := ensureDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("pki: kubeconfig: %w", err)
	}
	if err := writeFileAtomic(path, data, secretMode); err != nil {
		return fmt.Errorf("pki: kubeconfig: %w", err)
	}
	return nil
}
