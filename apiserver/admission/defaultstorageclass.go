package admission

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	storagev1listers "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	volumeutil "k8s.io/kubernetes/pkg/volume/util"
)

// DefaultStorageClassName is the DefaultStorageClass plugin's name.
const DefaultStorageClassName = "DefaultStorageClass"

var claimsResource = schema.GroupResource{Resource: "persistentvolumeclaims"}

// StorageClassLister lists the cluster's StorageClasses; the classes
// returned are not modified.
type StorageClassLister interface {
	ListStorageClasses(ctx context.Context) ([]*storagev1.StorageClass, error)
}

// DefaultStorageClass gives a new PersistentVolumeClaim that asks for
// no class (neither spec.storageClassName nor the beta annotation) the
// cluster's default class, as kube-apiserver's DefaultStorageClass
// plugin (plugin/pkg/admission/storage/storageclass/setdefault) does:
// the class it picks is upstream's GetDefaultClass's (of the classes
// annotated storageclass.kubernetes.io/is-default-class "true", the
// newest, then the first by name); with none, the claim is left alone.
// Safe for concurrent use.
type DefaultStorageClass struct {
	classes StorageClassLister
}

var _ MutatingPlugin = (*DefaultStorageClass)(nil)

// NewDefaultStorageClass returns the plugin reading classes.
func NewDefaultStorageClass(classes StorageClassLister) *DefaultStorageClass {
	return &DefaultStorageClass{classes: classes}
}

// Name returns "DefaultStorageClass".
func (*DefaultStorageClass) Name() string { return DefaultStorageClassName }

// Handles reports whether upstream's DefaultStorageClass handles op (creates).
func (*DefaultStorageClass) Handles(op Operation) bool { return handles(op, Create) }

// Admit acts on the create of a claim (not of its subresources). A
// failure to list the classes is a 403, as upstream's plugin answers it.
// Fields look like "spec.storageClassName=standard".
func (p *DefaultStorageClass) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
	if a.Operation != Create || a.Resource.GroupResource() != claimsResource || a.Subresource != "" {
		return nil, false, nil
	}
	pvc, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok {
		return nil, false, nil
	}
	if _, found := pvc.Annotations[corev1.BetaStorageClassAnnotation]; found || pvc.Spec.StorageClassName != nil {
		return nil, true, nil
	}
	classes, err := p.classes.ListStorageClasses(ctx)
	if err != nil {
		return nil, true, newForbidden(a, err)
	}
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, c := range classes {
		_ = indexer.Add(c)
	}
	def, err := volumeutil.GetDefaultClass(storagev1listers.NewStorageClassLister(indexer))
	if err != nil {
		return nil, true, newForbidden(a, err)
	}
	if def == nil {
		return nil, true, nil
	}
	name := def.Name
	pvc.Spec.StorageClassName = &name
	return []string{"spec.storageClassName=" + name}, true, nil
}
