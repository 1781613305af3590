package scenarios

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// resourceVersionOf returns the resourceVersion ref names: the first this
// run saw for the object (its create's, when the run created it), or the
// one it has now, read from the API as the expectations read.
func (p *player) resourceVersionOf(ctx context.Context, ref *ResourceVersionRef) (string, error) {
	o := ref.Object
	if ref.Version == "current" {
		ri, err := p.resource(o, expectUser)
		if err != nil {
			return "", err
		}
		u, err := ri.Get(ctx, o.Name, metav1.GetOptions{})
		if err != nil {
			return "", fmt.Errorf("resourceVersion of %s: %w", o, err)
		}
		return u.GetResourceVersion(), nil
	}
	p.mu.Lock()
	list := p.versionsSeen[o.Kind+"/"+o.Namespace+"/"+o.Name]
	p.mu.Unlock()
	if len(list) == 0 {
		return "", fmt.Errorf("no resourceVersion of %s seen yet in this run (an earlier step must create or read it)", o)
	}
	return list[0], nil
}
