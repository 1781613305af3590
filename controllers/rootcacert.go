package controllers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

const (
	// RootCACertPublisherName is upstream's name for the controller that
	// publishes the cluster's CA in every namespace.
	RootCACertPublisherName = "root-ca-cert-publisher"
	// RootCACertConfigMapName is the ConfigMap it writes: pods read the
	// CA from it through their projected service account volume.
	RootCACertConfigMapName = "kube-root-ca.crt"
	// RootCACertKey is the ConfigMap's key holding the PEM bundle.
	RootCACertKey = "ca.crt"
	// rootCADescriptionAnnotation and rootCADescription are upstream's
	// annotation on the ConfigMap.
	rootCADescriptionAnnotation = "kubernetes.io/description"
	rootCADescription           = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. " +
		"No other usage is guaranteed across distributions of Kubernetes clusters."
)

// RootCACertPublisher keeps the ConfigMap kube-root-ca.crt in every
// namespace holding the cluster's CA bundle, as upstream's
// rootcacertpublisher.Publisher: it creates it in each namespace added
// or updated while Active, and puts the bundle and its description back
// when the ConfigMap is changed or deleted. Create it with
// NewRootCACertPublisher, run it with Run.
type RootCACertPublisher struct {
	client   kubernetes.Interface
	rootCA   []byte
	cmLister corelisters.ConfigMapLister
	synced   []cache.DoneChecker
	queue    workqueue.TypedRateLimitingInterface[string]
}

// NewRootCACertPublisher sets up the publisher's informers on factory;
// rootCA is the PEM bundle to publish.
func NewRootCACertPublisher(factory informers.SharedInformerFactory, client kubernetes.Interface, rootCA []byte) (*RootCACertPublisher, error) {
	cmInf, nsInf := factory.Core().V1().ConfigMaps(), factory.Core().V1().Namespaces()
	c := &RootCACertPublisher{
		client: client, rootCA: rootCA, cmLister: cmInf.Lister(),
		synced: []cache.DoneChecker{cmInf.Informer().HasSyncedChecker(), nsInf.Informer().HasSyncedChecker()},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "root_ca_cert_publisher"}),
	}
	if _, err := cmInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(_, cur any) { c.configMapChanged(cur) },
		DeleteFunc: c.configMapChanged,
	}); err != nil {
		return nil, err
	}
	if _, err := nsInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { c.namespaceChanged(obj, false) },
		UpdateFunc: func(_, cur any) { c.namespaceChanged(cur, true) },
	}); err != nil {
		return nil, err
	}
	return c, nil
}

// Run waits for the informers, then syncs namespaces with workers
// goroutines until ctx is done.
func (c *RootCACertPublisher) Run(ctx context.Context, workers int) {
	runWorkers(ctx, c.queue, c.synced, workers, c.sync)
}

func (c *RootCACertPublisher) configMapChanged(obj any) {
	if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = tomb.Obj
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok || cm.Name != RootCACertConfigMapName {
		return
	}
	c.queue.Add(cm.Namespace)
}

// namespaceChanged queues a namespace added, or updated while Active
// (upstream's publisher queues every add, whatever the phase).
func (c *RootCACertPublisher) namespaceChanged(obj any, update bool) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok || (update && ns.Status.Phase != corev1.NamespaceActive) {
		return
	}
	c.queue.Add(ns.Name)
}

// sync makes the ConfigMap of namespace ns hold the bundle and the
// description, creating it if the informer does not know it. A create
// in a namespace gone or terminating is not retried.
func (c *RootCACertPublisher) sync(ctx context.Context, ns string) error {
	want := map[string]string{RootCACertKey: string(c.rootCA)}
	cm, err := c.cmLister.ConfigMaps(ns).Get(RootCACertConfigMapName)
	switch {
	case apierrors.IsNotFound(err):
		_, err = c.client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: RootCACertConfigMapName,
				Annotations: map[string]string{rootCADescriptionAnnotation: rootCADescription}},
			Data: want,
		}, metav1.CreateOptions{})
		if apierrors.IsNotFound(err) || apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
			return nil
		}
		return err
	case err != nil:
		return err
	}
	if maps.Equal(cm.Data, want) && cm.Annotations[rootCADescriptionAnnotation] != "" {
		return nil
	}
	cm = cm.DeepCopy()
	cm.Data = want
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[rootCADescriptionAnnotation] = rootCADescription
	_, err = c.client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	return err
}

// clusterCA is the CA bundle a client configuration trusts the API server
// with (upstream's publisher, without --root-ca-file, publishes the CA of
// its own client configuration the same way).
func clusterCA(rc *rest.Config) ([]byte, error) {
	if len(rc.TLSClientConfig.CAData) > 0 {
		return rc.TLSClientConfig.CAData, nil
	}
	if rc.TLSClientConfig.CAFile != "" {
		b, err := os.ReadFile(rc.TLSClientConfig.CAFile)
		if err != nil {
			return nil, fmt.Errorf("root CA: %w", err)
		}
		return b, nil
	}
	return nil, errors.New("root CA: the client configuration has no CA (CAData or CAFile)")
}

// newRootCACertPublisherDescriptor is the root-ca-cert-publisher's entry in
// newControllerDescriptors: one worker, publishing the CA its client
// configuration trusts.
func newRootCACertPublisherDescriptor() controllerDescriptor {
	return controllerDescriptor{name: RootCACertPublisherName, workers: fixedWorkers(1),
		build: func(cc *controllerContext) (runFunc, error) {
			rootCA, err := clusterCA(cc.restConfig(RootCACertPublisherName))
			if err != nil {
				return nil, err
			}
			client, err := cc.client(RootCACertPublisherName)
			if err != nil {
				return nil, err
			}
			c, err := NewRootCACertPublisher(cc.factory, client, rootCA)
			if err != nil {
				return nil, err
			}
			return c.Run, nil
		}}
}
