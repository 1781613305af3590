package scenarios

import (
	"fmt"
	"net/http"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubesim/kubesim/cluster"
)

// client returns a dynamic client acting as user (expectUser: the admin
// client of expectations), made once per run, user and API server (the
// running step's Server).
func (p *player) client(user string) (dynamic.Interface, error) {
	p.mu.Lock()
	key := user
	if user != expectUser && p.actionServer > 1 {
		key = fmt.Sprintf("%s@%d", user, p.actionServer)
	}
	d, ok := p.dynamicClients[key]
	server := p.actionServer
	p.mu.Unlock()
	if ok {
		return d, nil
	}
	var cfg *rest.Config
	var err error
	if user == expectUser {
		cfg, err = expectConfig(p.cluster, DefaultUser)
	} else {
		cfg, err = p.actionConfig(user, server)
	}
	if err != nil {
		return nil, err
	}
	d, err = dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.dynamicClients[key] = d
	p.mu.Unlock()
	return d, nil
}

// actionConfig is the client configuration of a step's action as user,
// to API server server (0 or 1: the cluster's own; more: the HA
// topology's others, which share its certificates): its user agent is
// ActionUserAgent and every response's Audit-Id is noted (auditNoter).
func (p *player) actionConfig(user string, server int) (*rest.Config, error) {
	cfg, err := p.cluster.RESTConfigAs(user)
	if err != nil {
		return nil, err
	}
	if server > 1 {
		ha := cluster.HAOf(p.cluster)
		if ha == nil || ha.APIServer(server) == nil {
			return nil, fmt.Errorf("server %d: the cluster has no running API server %d (cluster: topology: ha has %d)", server, server, cluster.DefaultHAConfig.APIServers)
		}
		cfg.Host = ha.APIServerURLs()[server-1]
	}
	cfg.UserAgent = ActionUserAgent
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return auditNoter{rt: rt, p: p} })
	return cfg, nil
}

// resource returns the client of o's resource, acting as user.
func (p *player) resource(o ObjectSpec, user string) (dynamic.ResourceInterface, error) {
	d, err := p.client(user)
	if err != nil {
		return nil, err
	}
	info, ok := kinds[o.Kind]
	if !ok {
		info, _ = p.customKind(o.Kind)
	}
	r := d.Resource(info.gvr)
	if info.namespaced {
		return r.Namespace(o.Namespace), nil
	}
	return r, nil
}

// reviewClient returns a typed client acting as user with
// ExpectUserAgent (canI sends its reviews with it), made once per run and
// user.
func (p *player) reviewClient(user string) (kubernetes.Interface, error) {
	p.mu.Lock()
	cs, ok := p.reviewClients[user]
	p.mu.Unlock()
	if ok {
		return cs, nil
	}
	cfg, err := expectConfig(p.cluster, user)
	if err != nil {
		return nil, err
	}
	if cs, err = kubernetes.NewForConfig(cfg); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.reviewClients[user] = cs
	p.mu.Unlock()
	return cs, nil
}
