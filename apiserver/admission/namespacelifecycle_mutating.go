package admission

import "context"

var _ MutatingPlugin = (*NamespaceLifecycle)(nil)

// Admit runs Validate's checks of a create in the mutating phase, where
// kube-apiserver runs NamespaceLifecycle, first of its plugins: a pod in
// a namespace that does not exist gets the namespace's 404 before the
// ServiceAccount plugin looks for its account there. It changes nothing.
// The validating phase runs Validate as well, which is where deletes and
// the creates that skip the mutating phase meet the plugin here.
func (l *NamespaceLifecycle) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
	if a.Operation != Create {
		return nil, false, nil
	}
	handled, err := l.Validate(ctx, a)
	return nil, handled, err
}
