package admission

import "time"

// SetServiceAccountTestHooks makes p name its volumes with generateName
// and look the default account up again without pausing.
func SetServiceAccountTestHooks(p *ServiceAccount, generateName func(string) string) {
	p.generateName = generateName
	p.retryInterval = func() time.Duration { return 0 }
}
