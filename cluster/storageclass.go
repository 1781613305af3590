package cluster

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/controllers"
	"github.com/kubesim/kubesim/internal/pki"
)

// DefaultStorageClassName is the default StorageClass kind installs, and
// kubesim too.
const DefaultStorageClassName = "standard"

// defaultStorageClass is kind's default StorageClass, as its node image's
// default storage manifest declares it: "standard", the default class
// (storageclass.kubernetes.io/is-default-class "true"), provisioner
// rancher.io/local-path, reclaim policy Delete, binding mode
// WaitForFirstConsumer. On kind, local-path-provisioner answers to that
// name; in kubesim its stand-in in the controller manager does
// (controllers.LocalPathController).
func defaultStorageClass() *storagev1.StorageClass {
	reclaim, mode := corev1.PersistentVolumeReclaimDelete, storagev1.VolumeBindingWaitForFirstConsumer
	return &storagev1.StorageClass{
		ObjectMeta: metav1.ObjectMeta{Name: DefaultStorageClassName,
			Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}},
		Provisioner:       controllers.LocalPathProvisioner,
		ReclaimPolicy:     &reclaim,
		VolumeBindingMode: &mode,
	}
}

// installStorageClass creates the default StorageClass unless it
// exists, as kind's "Installing StorageClass" step does once the
// cluster is up (a restart on the same data dir finds it there).
func (c *Cluster) installStorageClass(ctx context.Context) error {
	client, err := c.clientFor(pki.Admin())
	if err != nil {
		return err
	}
	return ensureStorageClass(ctx, client)
}

// ensureStorageClass creates defaultStorageClass unless it exists.
func ensureStorageClass(ctx context.Context, client kubernetes.Interface) error {
	_, err := client.StorageV1().StorageClasses().Create(ctx, defaultStorageClass(), metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}
