package scenarios

import (
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// remember notes a resourceVersion this run saw for an object (for
// update's resourceVersion: stale).
func (p *player) remember(u *unstructured.Unstructured) {
	if u == nil {
		return
	}
	key := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
	rv := u.GetResourceVersion()
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.versionsSeen[key]
	if rv != "" && (len(list) == 0 || list[len(list)-1] != rv) {
		p.versionsSeen[key] = append(list, rv)
	}
}

// staleVersion returns a resourceVersion of o older than current: the
// oldest this run saw, or current-1.
func (p *player) staleVersion(o ObjectSpec, current string) string {
	p.mu.Lock()
	list := p.versionsSeen[o.Kind+"/"+o.Namespace+"/"+o.Name]
	p.mu.Unlock()
	for _, rv := range list {
		if rv != current {
			return rv
		}
	}
	n, err := strconv.ParseInt(current, 10, 64)
	if err != nil || n <= 1 {
		return "1"
	}
	return strconv.FormatInt(n-1, 10)
}
