package scenarios

import (
	"k8s.io/client-go/kubernetes"
)

// typedClient returns a typed client acting as user for the running
// step's action (to its API server, with its user agent and Audit-Id
// noting; see actionConfig), for the actions that do what kubectl does
// with typed objects (logs, evict, drain). It is made anew for each call.
func (p *player) typedClient(user string) (kubernetes.Interface, error) {
	p.mu.Lock()
	server := p.actionServer
	p.mu.Unlock()
	cfg, err := p.actionConfig(user, server)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}
