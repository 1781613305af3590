package admission

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// NamespaceLifecycleName is the NamespaceLifecycle plugin's name.
const NamespaceLifecycleName = "NamespaceLifecycle"

// NamespaceLister tells the phase of a namespace; a namespace that does
// not exist gives an error for which apierrors.IsNotFound is true. Phase
// may answer from a cache; LivePhase reads storage. registry.NamespaceCache
// implements it.
type NamespaceLister interface {
	Phase(ctx context.Context, name string) (corev1.NamespacePhase, error)
	LivePhase(ctx context.Context, name string) (corev1.NamespacePhase, error)
}

// liveLookupTTL is how long after a namespace's deletion was admitted the
// plugin reads its phase from storage rather than the cache, which may
// not have seen the deletion yet (kube-apiserver's forceLiveLookupTTL).
const liveLookupTTL = 30 * time.Second

var (
	namespaceKind      = schema.GroupKind{Kind: "Namespace"}
	namespacesResource = schema.GroupResource{Resource: "namespaces"}
	// accessReviews may be created in any namespace, even a missing one:
	// saying "not found" would tell which namespaces exist.
	accessReviews = sets.New(schema.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"})
)

// NamespaceLifecycle keeps objects out of namespaces that do not exist or
// are being deleted, and keeps default, kube-system and kube-public from
// being deleted. It is a mutating plugin only, as upstream's (its
// Lifecycle implements Admit and no Validate), though it changes
// nothing: kube-apiserver runs it first of the mutating plugins, so a pod
// in a namespace that does not exist gets the namespace's 404 before the
// ServiceAccount plugin looks for its account there. It is safe for
// concurrent use.
type NamespaceLifecycle struct {
	namespaces NamespaceLister
	immortal   sets.Set[string]

	mu      sync.Mutex
	deleted map[string]time.Time // namespace → end of its live lookups
	now     func() time.Time
}

var _ MutatingPlugin = (*NamespaceLifecycle)(nil)

// NewNamespaceLifecycle returns the plugin, reading namespace phases from
// namespaces. A lister that finds a namespace missing should look again in
// storage before saying so (a namespace may have just been created), as
// registry.NamespaceCache does.
func NewNamespaceLifecycle(namespaces NamespaceLister) *NamespaceLifecycle {
	return &NamespaceLifecycle{
		namespaces: namespaces,
		immortal:   sets.New(metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic),
		deleted:    map[string]time.Time{},
		now:        time.Now,
	}
}

// recentlyDeleted notes that name's deletion is under way, or reports
// whether it was within liveLookupTTL, forgetting what has expired.
func (l *NamespaceLifecycle) recentlyDeleted(name string, note bool) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if note {
		l.deleted[name] = now.Add(liveLookupTTL)
		return true
	}
	until, ok := l.deleted[name]
	if ok && !now.Before(until) {
		delete(l.deleted, name)
		return false
	}
	return ok
}

// Name returns "NamespaceLifecycle".
func (*NamespaceLifecycle) Name() string { return NamespaceLifecycleName }

// Handles reports whether upstream's NamespaceLifecycle handles op (creates, updates and deletes).
func (*NamespaceLifecycle) Handles(op Operation) bool { return handles(op, Create, Update, Delete) }

// Admit changes nothing (fields are always nil) and rejects
//   - deleting default, kube-system or kube-public: 403
//     `namespaces "default" is forbidden: this namespace may not be deleted`;
//   - creating in a namespace that does not exist: 404
//     `namespaces "x" not found`;
//   - creating in a Terminating namespace: 403 `pods "p" is forbidden:
//     unable to create new content in namespace x because it is being
//     terminated`, with a NamespaceTerminating cause on metadata.namespace.
//
// Cluster-scoped objects, namespaces themselves, access reviews, updates
// and deletes are not its business (handled=false), except the deletion
// of a namespace, which it checks. For liveLookupTTL after a namespace's
// deletion passes, creates there check its phase in storage: the cache
// may still say Active.
func (l *NamespaceLifecycle) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
	handled, err := l.admit(ctx, a)
	return nil, handled, err
}

func (l *NamespaceLifecycle) admit(ctx context.Context, a *Attributes) (bool, error) {
	isNamespace := a.Kind.GroupKind() == namespaceKind || a.Resource.GroupResource() == namespacesResource
	if isNamespace && a.Operation == Delete {
		if l.immortal.Has(a.Name) {
			return true, apierrors.NewForbidden(a.Resource.GroupResource(), a.Name, fmt.Errorf("this namespace may not be deleted"))
		}
		l.recentlyDeleted(a.Name, true)
		return true, nil
	}
	if isNamespace || a.Namespace == "" || a.Operation != Create || accessReviews.Has(a.Resource.GroupResource()) {
		return false, nil
	}
	lookup := l.namespaces.Phase
	if l.recentlyDeleted(a.Namespace, false) {
		lookup = l.namespaces.LivePhase
	}
	phase, err := lookup(ctx, a.Namespace)
	switch {
	case apierrors.IsNotFound(err):
		return true, apierrors.NewNotFound(namespacesResource, a.Namespace)
	case err != nil:
		return true, apierrors.NewInternalError(err)
	case phase != corev1.NamespaceTerminating:
		return true, nil
	}
	ferr := newForbidden(a, fmt.Errorf("unable to create new content in namespace %s because it is being terminated", a.Namespace))
	if se, ok := ferr.(*apierrors.StatusError); ok && se.ErrStatus.Details != nil {
		se.ErrStatus.Details.Causes = append(se.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", a.Namespace),
			Field:   "metadata.namespace",
		})
	}
	return true, ferr
}
