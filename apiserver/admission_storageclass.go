package apiserver

import (
	"context"

	storagev1 "k8s.io/api/storage/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// storageClassLister lists the StorageClasses for the DefaultStorageClass
// admission plugin, from the watch cache (resourceVersion "0"), as
// upstream's plugin reads its informer's lister.
type storageClassLister struct{ store *registry.Store }

// ListStorageClasses returns every StorageClass.
func (l storageClassLister) ListStorageClasses(ctx context.Context) ([]*storagev1.StorageClass, error) {
	obj, err := l.store.List(ctx, "", &metainternalversion.ListOptions{ResourceVersion: "0"})
	if err != nil {
		return nil, err
	}
	list := obj.(*storagev1.StorageClassList)
	out := make([]*storagev1.StorageClass, len(list.Items))
	for i := range list.Items {
		out[i] = &list.Items[i]
	}
	return out, nil
}
