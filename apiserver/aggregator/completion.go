package aggregator

import (
	"fmt"
	"sort"
	"sync"

	"k8s.io/client-go/tools/cache"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// CompletionCheckName is the readiness check of the autoregistered
// APIServices, upstream's name.
const CompletionCheckName = "autoregister-completion"

// CompletionCheck is the autoregister-completion readiness check: it
// passes once every APIService it waits for has been seen Available at
// least once, as upstream's. Safe for concurrent use.
type CompletionCheck struct {
	mu      sync.Mutex
	pending map[string]bool
}

// NewCompletionCheck waits for the APIServices of services, watching
// informer (APIServices).
func NewCompletionCheck(informer cache.SharedIndexInformer, services []*apiregv1.APIService) (*CompletionCheck, error) {
	c := &CompletionCheck{pending: map[string]bool{}}
	for _, a := range services {
		c.pending[a.Name] = true
	}
	seen := func(obj any) {
		a, ok := obj.(*apiregv1.APIService)
		if !ok || !available(a) {
			return
		}
		c.mu.Lock()
		delete(c.pending, a.Name)
		c.mu.Unlock()
	}
	_, err := informer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: seen, UpdateFunc: func(_, obj any) { seen(obj) }})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Check returns nil once nothing is pending, and "missing APIService:
// [names]" before.
func (c *CompletionCheck) Check() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.pending) == 0 {
		return nil
	}
	names := make([]string, 0, len(c.pending))
	for n := range c.pending {
		names = append(names, n)
	}
	sort.Strings(names)
	return fmt.Errorf("missing APIService: %v", names)
}
