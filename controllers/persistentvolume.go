package controllers

import (
	"context"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	pvcontroller "k8s.io/kubernetes/pkg/controller/volume/persistentvolume"
	"k8s.io/kubernetes/pkg/controller/volume/pvcprotection"
	"k8s.io/kubernetes/pkg/controller/volume/pvprotection"
)

// The volume controllers' service accounts and user agents, upstream's
// names for them.
const (
	PersistentVolumeBinderName  = "persistent-volume-binder"
	PVCProtectionControllerName = "pvc-protection-controller"
	PVProtectionControllerName  = "pv-protection-controller"
)

// pvClaimBinderSyncPeriod is how often the binder goes over every claim
// and volume again (--pvclaimbinder-sync-period, 15 s).
const pvClaimBinderSyncPeriod = 15 * time.Second

// newPersistentVolumeBinderDescriptor is upstream's PersistentVolume
// controller (pkg/controller/volume/persistentvolume, the
// "persistentvolume-binder"): it binds a claim to a matching available
// volume (spec.volumeName and claimRef, phases Bound), and for a claim
// of a class whose provisioner is not one of its in-tree volume plugins
// it writes the annotation volume.kubernetes.io/storage-provisioner and
// waits for that external provisioner's volume (for a class in
// WaitForFirstConsumer mode, only once the scheduler has set
// volume.kubernetes.io/selected-node); a volume whose claim is gone is
// Released, and then, by its reclaim policy, kept (Retain) or left to
// its provisioner to delete (Delete). kubesim gives it no volume plugins
// (kube-controller-manager gives it the in-tree host-path and NFS ones,
// which provision and recycle nothing unless flags enable them): every
// provisioning and deletion is external, as for kind's local-path
// class.
func newPersistentVolumeBinderDescriptor() controllerDescriptor {
	return controllerDescriptor{name: PersistentVolumeBinderName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(PersistentVolumeBinderName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				c, err := pvcontroller.NewController(ctx, pvcontroller.ControllerParameters{
					KubeClient:                client,
					SyncPeriod:                pvClaimBinderSyncPeriod,
					VolumeInformer:            f.Core().V1().PersistentVolumes(),
					ClaimInformer:             f.Core().V1().PersistentVolumeClaims(),
					ClassInformer:             f.Storage().V1().StorageClasses(),
					PodInformer:               f.Core().V1().Pods(),
					NodeInformer:              f.Core().V1().Nodes(),
					EnableDynamicProvisioning: true,
				})
				if err != nil {
					return nil, err
				}
				return func(ctx context.Context, _ int) { c.Run(ctx) }, nil
			})
		}}
}

// newPVCProtectionDescriptor is upstream's pvc-protection controller
// (pkg/controller/volume/pvcprotection): it takes the finalizer
// kubernetes.io/pvc-protection off a deleted claim once no pod that is
// not finished uses it. 1 worker, as kube-controller-manager runs it.
func newPVCProtectionDescriptor() controllerDescriptor {
	return controllerDescriptor{name: PVCProtectionControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(PVCProtectionControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				c, err := pvcprotection.NewPVCProtectionController(klog.FromContext(ctx), f.Core().V1().PersistentVolumeClaims(), f.Core().V1().Pods(), client)
				if err != nil {
					return nil, err
				}
				return c.Run, nil
			})
		}}
}

// newPVProtectionDescriptor is upstream's pv-protection controller
// (pkg/controller/volume/pvprotection): it takes the finalizer
// kubernetes.io/pv-protection off a deleted volume once it is bound to
// no claim. 1 worker.
func newPVProtectionDescriptor() controllerDescriptor {
	return controllerDescriptor{name: PVProtectionControllerName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			f := cc.factory
			return cc.upstream(PVProtectionControllerName, func(ctx context.Context, client kubernetes.Interface, _ *rest.Config) (runFunc, error) {
				c, err := pvprotection.NewPVProtectionController(klog.FromContext(ctx), f.Core().V1().PersistentVolumes(), client)
				if err != nil {
					return nil, err
				}
				return c.Run, nil
			})
		}}
}
