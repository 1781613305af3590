package controllers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
)

// LocalPathProvisionerName is the service account (in kube-system) and
// user agent of kubesim's stand-in for kind's local-path-provisioner.
const LocalPathProvisionerName = "kubesim-local-path-provisioner"

// LocalPathProvisioner is the name of the provisioner kind's default
// StorageClass "standard" names, and the one the stand-in answers to.
const LocalPathProvisioner = "rancher.io/local-path"

// LocalPathBase is where kind's local-path-provisioner keeps its volumes
// on a node (kind's nodePathMap).
const LocalPathBase = "/var/local-path-provisioner"

// The annotations a provisioner reads and writes (upstream's names).
const (
	annStorageProvisioner     = "volume.kubernetes.io/storage-provisioner"
	annBetaStorageProvisioner = "volume.beta.kubernetes.io/storage-provisioner"
	annSelectedNode           = "volume.kubernetes.io/selected-node"
	annProvisionedBy          = "pv.kubernetes.io/provisioned-by"
)

// LocalPathController is kubesim's stand-in for kind's
// local-path-provisioner (rancher/local-path-provisioner on
// sig-storage-lib-external-provisioner), which kubesim runs in its
// controller manager instead of as a Deployment in the namespace
// local-path-storage. It acts as that provisioner does, without its
// helper pods or any directory on a disk:
//   - a claim the persistentvolume-binder handed to rancher.io/local-path
//     (annotation volume.kubernetes.io/storage-provisioner) whose class
//     names it gets a PersistentVolume pvc-<claim uid>: hostPath
//     /var/local-path-provisioner/pvc-<uid>_<namespace>_<name>
//     (DirectoryOrCreate), node affinity to the node the scheduler chose
//     (volume.kubernetes.io/selected-node), the claim's request as
//     capacity, its access and volume modes, the class's reclaim policy,
//     and a claimRef to the claim, which the binder then binds. Events
//     Provisioning and ProvisioningSucceeded on the claim, worded as the
//     library's.
//   - a claim with no selected node is not provisioned: in
//     WaitForFirstConsumer mode the library waits for the scheduler; in
//     Immediate mode local-path-provisioner fails it ("configuration
//     error, no node was specified", event ProvisioningFailed), and so
//     does kubesim; so does a claim with a selector or an access mode
//     other than ReadWriteOnce.
//   - a Released volume it provisioned, with reclaim policy Delete, is
//     deleted.
type LocalPathController struct {
	client   kubernetes.Interface
	claims   corelisters.PersistentVolumeClaimLister
	volumes  corelisters.PersistentVolumeLister
	classes  storagelisters.StorageClassLister
	synced   []cache.InformerSynced
	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
}

// NewLocalPathController sets up the provisioner's informers (claims,
// volumes, classes) on factory; client acts as
// LocalPathProvisionerName.
func NewLocalPathController(factory informers.SharedInformerFactory, client kubernetes.Interface) *LocalPathController {
	claimInf, volInf, classInf := factory.Core().V1().PersistentVolumeClaims(), factory.Core().V1().PersistentVolumes(), factory.Storage().V1().StorageClasses()
	c := &LocalPathController{client: client, claims: claimInf.Lister(), volumes: volInf.Lister(), classes: classInf.Lister(),
		synced: []cache.InformerSynced{claimInf.Informer().HasSynced, volInf.Informer().HasSynced, classInf.Informer().HasSynced},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "local-path-provisioner"})}
	enqueue := func(prefix string) cache.ResourceEventHandlerFuncs {
		add := func(obj any) {
			if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
				c.queue.Add(prefix + key)
			}
		}
		return cache.ResourceEventHandlerFuncs{AddFunc: add, UpdateFunc: func(_, obj any) { add(obj) }}
	}
	_, _ = claimInf.Informer().AddEventHandler(enqueue("claim/"))
	_, _ = volInf.Informer().AddEventHandler(enqueue("volume/"))
	return c
}

// Run records events, waits for the informers and works the queue with
// workers goroutines until ctx is done.
func (c *LocalPathController) Run(ctx context.Context, workers int) {
	defer c.queue.ShutDown()
	b := record.NewBroadcaster(record.WithContext(ctx))
	defer b.Shutdown()
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.client.CoreV1().Events("")})
	c.recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: LocalPathProvisioner + "_" + LocalPathProvisionerName})
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return
	}
	for range workers {
		go wait.UntilWithContext(ctx, c.work, 0)
	}
	<-ctx.Done()
}

// work syncs keys until the queue shuts down.
func (c *LocalPathController) work(ctx context.Context) {
	for {
		key, quit := c.queue.Get()
		if quit {
			return
		}
		var err error
		if name, ok := strings.CutPrefix(key, "volume/"); ok {
			err = c.syncVolume(ctx, name)
		} else {
			err = c.syncClaim(ctx, strings.TrimPrefix(key, "claim/"))
		}
		if err != nil {
			c.queue.AddRateLimited(key)
		} else {
			c.queue.Forget(key)
		}
		c.queue.Done(key)
	}
}

// errNoNode is local-path-provisioner's answer to a claim without a
// selected node.
var errNoNode = errors.New("configuration error, no node was specified")

// syncClaim provisions the volume of the claim key if it is the
// provisioner's to provision and has none yet.
func (c *LocalPathController) syncClaim(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pvc, err := c.claims.PersistentVolumeClaims(ns).Get(name)
	if err != nil || pvc.Spec.VolumeName != "" || pvc.DeletionTimestamp != nil || !handedToUs(pvc) {
		return nil
	}
	class, err := c.classes.Get(claimClassName(pvc))
	if err != nil || class.Provisioner != LocalPathProvisioner {
		return nil
	}
	if _, err := c.volumes.Get("pvc-" + string(pvc.UID)); err == nil {
		return nil
	}
	node := pvc.Annotations[annSelectedNode]
	waitForConsumer := class.VolumeBindingMode != nil && *class.VolumeBindingMode == storagev1.VolumeBindingWaitForFirstConsumer
	if node == "" && waitForConsumer {
		return nil
	}
	pv, err := localPathVolume(pvc, class, node)
	if err != nil {
		c.recorder.Event(pvc, corev1.EventTypeWarning, "ProvisioningFailed",
			fmt.Sprintf("failed to provision volume with StorageClass %q: %v", class.Name, err))
		return nil
	}
	c.recorder.Event(pvc, corev1.EventTypeNormal, "Provisioning", fmt.Sprintf("External provisioner is provisioning volume for claim %q", key))
	if _, err := c.client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	c.recorder.Event(pvc, corev1.EventTypeNormal, "ProvisioningSucceeded", "Successfully provisioned volume "+pv.Name)
	return nil
}

// syncVolume deletes the volume name if it is Released, was provisioned
// here and is to be deleted once released.
func (c *LocalPathController) syncVolume(ctx context.Context, name string) error {
	pv, err := c.volumes.Get(name)
	if err != nil || pv.DeletionTimestamp != nil || pv.Status.Phase != corev1.VolumeReleased ||
		pv.Spec.PersistentVolumeReclaimPolicy != corev1.PersistentVolumeReclaimDelete || pv.Annotations[annProvisionedBy] != LocalPathProvisioner {
		return nil
	}
	err = c.client.CoreV1().PersistentVolumes().Delete(ctx, name, metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// handedToUs reports whether the binder handed pvc to the provisioner.
func handedToUs(pvc *corev1.PersistentVolumeClaim) bool {
	return pvc.Annotations[annStorageProvisioner] == LocalPathProvisioner || pvc.Annotations[annBetaStorageProvisioner] == LocalPathProvisioner
}

// claimClassName is the claim's class (the beta annotation first).
func claimClassName(pvc *corev1.PersistentVolumeClaim) string {
	if class, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
		return class
	}
	if pvc.Spec.StorageClassName != nil {
		return *pvc.Spec.StorageClassName
	}
	return ""
}
