package scenarios

import (
	"net/http"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// client returns a dynamic client acting as user (expectUser: the admin
// client of expectations), made once per run and user.
func (p *player) client(user string) (dynamic.Interface, error) {
	p.mu.Lock()
	d, ok := p.dynamicClients[user]
	p.mu.Unlock()
	if ok {
		return d, nil
	}
	var cfg *rest.Config
	var err error
	if user == expectUser {
		cfg, err = expectConfig(p.cluster, DefaultUser)
	} else {
		cfg, err = p.actionConfig(user)
	}
	if err != nil {
		return nil, err
	}
	d, err = dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.dynamicClients[user] = d
	p.mu.Unlock()
	return d, nil
}

// actionConfig is the client configuration of a step's action as user:
// its user agent is ActionUserAgent and every response's Audit-Id is
// noted (auditNoter).
func (p *player) actionConfig(user string) (*rest.Config, error) {
	cfg, err := p.cluster.RESTConfigAs(user)
	if err != nil {
		return nil, err
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
