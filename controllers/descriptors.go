package controllers

import (
	"context"
	"fmt"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// runFunc runs a controller with its workers until ctx is done.
type runFunc func(ctx context.Context, workers int)

// controllerDescriptor says how the manager makes and runs one
// controller, as upstream's ControllerDescriptor does.
type controllerDescriptor struct {
	// name is the controller's service account in ControllerNamespace
	// (and its user agent): upstream's name for it.
	name string
	// workers is how many keys it syncs at once under cfg.
	workers func(cfg *Config) int
	// build makes the controller; its informers are registered on
	// ctx.factory, which starts after every controller is built.
	build func(ctx *controllerContext) (runFunc, error)
}

// newControllerDescriptors are the controllers the manager runs, in the
// order it builds them, makes their service accounts and starts them:
// the one list of them. The order is that of kube-controller-manager's
// NewControllerDescriptors (cmd/kube-controller-manager/app/
// controller_descriptor.go, v1.37) for the controllers kubesim has;
// upstream's taint-eviction-controller, registered last there among the
// feature-gated ones, runs inside node-controller's entry here. A name
// given twice is a programming error: it panics, as upstream's register
// does. Every controller is always enabled (kubesim has no --controllers
// flag). Safe to call at any time; each call returns a new slice.
func newControllerDescriptors() []controllerDescriptor {
	return checkedDescriptors(
		newEndpointsControllerDescriptor(),
		newEndpointSliceControllerDescriptor(),
		newReplicationControllerDescriptor(),
		newPodGCControllerDescriptor(),
		newResourceQuotaControllerDescriptor(),
		newNamespaceControllerDescriptor(),
		newServiceAccountControllerDescriptor(),
		newGarbageCollectorControllerDescriptor(),
		newDaemonSetControllerDescriptor(),
		newJobControllerDescriptor(),
		newDeploymentControllerDescriptor(),
		newReplicaSetControllerDescriptor(),
		newHPAControllerDescriptor(),
		newDisruptionControllerDescriptor(),
		newStatefulSetControllerDescriptor(),
		newCronJobControllerDescriptor(),
		newCertificateControllerDescriptor(),
		newNodeLifecycleControllerDescriptor(),
		newPersistentVolumeBinderDescriptor(),
		newClusterRoleAggregationControllerDescriptor(),
		newPVCProtectionDescriptor(),
		newPVProtectionDescriptor(),
		newTTLAfterFinishedControllerDescriptor(),
		newRootCACertPublisherDescriptor(),
		newLocalPathProvisionerDescriptor(),
	)
}

// checkedDescriptors returns ds, after making sure that each has a name,
// a workers func and a build func, and that no name comes twice; it
// panics otherwise.
func checkedDescriptors(ds ...controllerDescriptor) []controllerDescriptor {
	seen := make(map[string]bool, len(ds))
	for _, d := range ds {
		switch {
		case d.name == "":
			panic("controllers: a controller without a name")
		case d.workers == nil || d.build == nil:
			panic("controllers: " + d.name + " has no workers or build func")
		case seen[d.name]:
			panic("controllers: " + d.name + " registered twice")
		}
		seen[d.name] = true
	}
	return ds
}

// controllerContext is what a controller's build gets: the manager's
// config and shared informers, and the credentials of each controller
// (upstream's ControllerContext).
type controllerContext struct {
	cfg     *Config
	factory informers.SharedInformerFactory
	// creds gives each controller its own client configuration, by name.
	creds clientConfigs
	// own is the manager's own (for informers that are not shared).
	own clientConfigs
	// mapper is the RESTMapper of the controllers that ask for one (made
	// by restMapper on first use); the manager resets it while it runs.
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// restConfig is the client configuration of the controller name.
func (c *controllerContext) restConfig(name string) *rest.Config { return c.creds.config(name) }

// client is a clientset for the controller name.
func (c *controllerContext) client(name string) (kubernetes.Interface, error) {
	cs, err := kubernetes.NewForConfig(c.creds.config(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return cs, nil
}

// fixedWorkers is a workers func that ignores the config.
func fixedWorkers(n int) func(*Config) int { return func(*Config) int { return n } }

// defaultWorkers is cfg.Workers.
func defaultWorkers(cfg *Config) int { return cfg.Workers }
