package controllers

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
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

// controllerDescriptors are the controllers the manager runs, each added
// by its own file's init with registerController.
var controllerDescriptors []controllerDescriptor

// registerController adds d to the controllers the manager runs; a name
// registered twice is a programming error.
func registerController(d controllerDescriptor) {
	if slices.ContainsFunc(controllerDescriptors, func(o controllerDescriptor) bool { return o.name == d.name }) {
		panic("controllers: " + d.name + " registered twice")
	}
	controllerDescriptors = append(controllerDescriptors, d)
}

// controllerNames are the registered controllers' names, in
// registration order.
func controllerNames() []string {
	names := make([]string, 0, len(controllerDescriptors))
	for _, d := range controllerDescriptors {
		names = append(names, d.name)
	}
	return names
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
