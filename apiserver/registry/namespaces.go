package registry

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/kubesim/kubesim/apiserver/storage"
)

// The namespaces every cluster starts with.
var BootstrapNamespaces = []string{
	metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease,
}

// Namespaces is the namespaces resource. Deleting a namespace marks it
// Terminating; the NamespaceController empties it and then removes it.
var Namespaces = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Namespace"),
	Plural:       "namespaces",
	Singular:     "namespace",
	ShortNames:   []string{"ns"},
	NewFunc:      func() runtime.Object { return &corev1.Namespace{} },
	NewListFunc:  func() runtime.Object { return &corev1.NamespaceList{} },
	Default:      defaultNamespace,
	ValidateName: validation.ValidateNamespaceName,
	Strategy: Strategy{
		PrepareForCreate: func(obj runtime.Object) {
			ns := obj.(*corev1.Namespace)
			ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
			if !slices.Contains(ns.Spec.Finalizers, corev1.FinalizerKubernetes) {
				ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
			}
		},
		PrepareForUpdate: func(obj, old runtime.Object) {
			ns, o := obj.(*corev1.Namespace), old.(*corev1.Namespace)
			ns.Spec.Finalizers = o.Spec.Finalizers
			ns.Status = o.Status
		},
		AllowUnconditionalUpdate: true,
	},
	Fields: func(obj runtime.Object) fields.Set {
		ns := obj.(*corev1.Namespace)
		return fields.Set{"metadata.name": ns.Name, "status.phase": string(ns.Status.Phase)}
	},
	FieldLabels: []string{"status.phase", "metadata.name"},
}

// NamespaceStatusStrategy is the strategy of namespaces/status.
var NamespaceStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Namespace).Spec = old.(*corev1.Namespace).Spec
	},
	AllowUnconditionalUpdate: true,
}

// NamespaceFinalizeStrategy is the strategy of namespaces/finalize: only
// spec.finalizers may change.
var NamespaceFinalizeStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		obj.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
	},
	AllowUnconditionalUpdate: true,
}

// defaultNamespace adds the kubernetes.io/metadata.name label, as the
// defaulting of every namespace write does, and reports it.
func defaultNamespace(obj runtime.Object) []string {
	ns := obj.(*corev1.Namespace)
	if ns.Name == "" || ns.Labels[corev1.LabelMetadataName] == ns.Name {
		return nil
	}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
	var d defaulted
	d.add("metadata.labels."+corev1.LabelMetadataName, ns.Name)
	return d
}

// DeleteNamespace starts the deletion of a namespace: the first call marks
// it Terminating (the answer is the namespace, 200); it is removed only
// once its spec.finalizers are empty.
func DeleteNamespace(ctx context.Context, s *Store, name string, deleteValidation ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	obj, err := s.Get(ctx, "", name, nil)
	if err != nil {
		return nil, false, err
	}
	ns := obj.(*corev1.Namespace)
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	precond := &storage.Preconditions{UID: &ns.UID}
	if p := opts.Preconditions; p != nil {
		precond.ResourceVersion = p.ResourceVersion
		if p.UID != nil {
			precond.UID = p.UID
		}
	}
	key := s.Key("", name)
	if err := precond.Check(key, ns); err != nil {
		return nil, false, s.interpret(err, name)
	}
	if ns.DeletionTimestamp == nil {
		out, err := s.storage.GuaranteedUpdate(ctx, key, precond, false, storage.WriteOptions{DryRun: isDryRun(opts.DryRun)}, func(cur runtime.Object) (runtime.Object, error) {
			if deleteValidation != nil {
				if err := deleteValidation(ctx, cur); err != nil {
					return nil, err
				}
			}
			n := cur.(*corev1.Namespace)
			if n.DeletionTimestamp == nil {
				now := metav1.Now()
				n.DeletionTimestamp = &now
			}
			n.Status.Phase = corev1.NamespaceTerminating
			return n, nil
		})
		if err != nil {
			return nil, false, s.interpret(err, name)
		}
		return out, false, nil
	}
	if len(ns.Spec.Finalizers) != 0 {
		return ns, false, nil
	}
	return s.Delete(ctx, "", name, deleteValidation, opts)
}

// NamespaceController does the namespace controller's part of deleting a
// namespace: for each Terminating namespace it deletes everything in it,
// and once nothing is left it removes the kubernetes finalizer and the
// namespace.
type NamespaceController struct {
	Namespaces *Store
	// Content lists the stores of namespaced resources to empty.
	Content []*Store
	// Resync is how often namespaces still terminating are looked at
	// again (their pods may take a grace period to go).
	Resync time.Duration
}

// Run works until ctx is done.
func (c *NamespaceController) Run(ctx context.Context) {
	resync := c.Resync
	if resync <= 0 {
		resync = time.Second
	}
	for ctx.Err() == nil {
		c.watchAndSync(ctx, resync)
		select {
		case <-ctx.Done():
		case <-time.After(resync):
		}
	}
}

// watchAndSync handles terminating namespaces as they appear, and all of
// them every resync period, until the watch ends.
func (c *NamespaceController) watchAndSync(ctx context.Context, resync time.Duration) {
	w, err := c.Namespaces.Watch(ctx, "", nil)
	if err != nil {
		return
	}
	defer w.Stop()
	tick := time.NewTicker(resync)
	defer tick.Stop()
	pending := map[string]bool{}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			if ns, ok := ev.Object.(*corev1.Namespace); ok && ns.DeletionTimestamp != nil && ev.Type != watch.Deleted {
				pending[ns.Name] = true
				if c.sync(ctx, ns.Name) {
					delete(pending, ns.Name)
				}
			}
		case <-tick.C:
			for name := range pending {
				if c.sync(ctx, name) {
					delete(pending, name)
				}
			}
		}
	}
}

// sync empties one terminating namespace; it reports true when the
// namespace is gone (or not terminating).
func (c *NamespaceController) sync(ctx context.Context, name string) bool {
	obj, err := c.Namespaces.Get(ctx, "", name, nil)
	if apierrors.IsNotFound(err) {
		return true
	}
	if err != nil {
		return false
	}
	ns := obj.(*corev1.Namespace)
	if ns.DeletionTimestamp == nil {
		return true
	}
	left := 0
	for _, s := range c.Content {
		list, err := s.DeleteCollection(ctx, name, nil, &metav1.DeleteOptions{}, nil)
		if err != nil {
			return false
		}
		n := meta.LenList(list)
		left += n
	}
	if left > 0 {
		// Deleted now or gracefully: look again next round.
		remaining := 0
		for _, s := range c.Content {
			list, err := s.List(ctx, name, nil)
			if err != nil {
				return false
			}
			n := meta.LenList(list)
			remaining += n
		}
		if remaining > 0 {
			return false
		}
	}
	_, _, err = c.Namespaces.WithStrategy(NamespaceFinalizeStrategy).Update(ctx, "", name, func(_ context.Context, cur runtime.Object) (runtime.Object, error) {
		n := cur.DeepCopyObject().(*corev1.Namespace)
		n.Spec.Finalizers = slices.DeleteFunc(n.Spec.Finalizers, func(f corev1.FinalizerName) bool { return f == corev1.FinalizerKubernetes })
		return n, nil
	}, nil, nil, Options{})
	if err != nil && !apierrors.IsNotFound(err) {
		return false
	}
	_, _, err = DeleteNamespace(ctx, c.Namespaces, name, nil, nil)
	return err == nil || apierrors.IsNotFound(err)
}
