package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// Defaults used by NewConfig.
const (
	// DefaultSpeed runs upstream's periods as written.
	DefaultSpeed = 1.0
	// ZeroSpeedDivisor divides the periods at Speed 0 (no simulated
	// delays): a period of 0 would make a controller spin.
	ZeroSpeedDivisor = 1000
	// DefaultWorkers is how many keys each controller syncs at once
	// (kube-controller-manager's --concurrent-replicaset-syncs,
	// --concurrent-deployment-syncs and --concurrent-gc-syncs are 5, 5
	// and 20).
	DefaultWorkers = 5
	// DefaultGCWorkers is the garbage collector's.
	DefaultGCWorkers = 20
)

// Config configures a Manager.
type Config struct {
	// REST reaches the API server, authenticated as
	// system:kube-controller-manager.
	REST *rest.Config
	// Speed divides upstream's periods (the expectations timeout, the
	// garbage collector's rediscovery); 0 divides them by
	// ZeroSpeedDivisor.
	Speed float64
	// Workers and GCWorkers are the workers per controller.
	Workers, GCWorkers int
}

// NewConfig returns the defaults for a manager that reaches the API
// through rc.
func NewConfig(rc *rest.Config) *Config {
	return &Config{REST: rc, Speed: DefaultSpeed, Workers: DefaultWorkers, GCWorkers: DefaultGCWorkers}
}

// Validate reports what is wrong with c.
func (c *Config) Validate() error {
	switch {
	case c.REST == nil:
		return errors.New("controllers: no REST config")
	case c.Speed < 0:
		return fmt.Errorf("controllers: speed %v is negative", c.Speed)
	case c.Workers < 1 || c.GCWorkers < 1:
		return fmt.Errorf("controllers: workers %d, gc workers %d: want at least 1 each", c.Workers, c.GCWorkers)
	}
	return nil
}

// period scales one of upstream's periods by c.Speed.
func (c *Config) period(d time.Duration) time.Duration {
	if c.Speed == 0 {
		return d / ZeroSpeedDivisor
	}
	return time.Duration(float64(d) / c.Speed)
}

// Manager runs the controllers on one shared informer factory, as
// kube-controller-manager does. Create it with New, run it with Run.
type Manager struct {
	cfg       *Config
	client    kubernetes.Interface
	dynamic   dynamic.Interface
	factory   informers.SharedInformerFactory
	replicas  *ReplicaSetController
	deploys   *DeploymentController
	collector *GarbageCollector
}

// New returns a manager for cfg with its controllers' informers set up
// but not started.
func New(cfg *Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	client, err := kubernetes.NewForConfig(cfg.REST)
	if err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg.REST)
	if err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	m := &Manager{cfg: cfg, client: client, dynamic: dyn, factory: informers.NewSharedInformerFactory(client, 0)}
	if m.replicas, err = NewReplicaSetController(m.factory, client, cfg.period(DefaultExpectationsTimeout)); err != nil {
		return nil, err
	}
	if m.deploys, err = NewDeploymentController(m.factory, client); err != nil {
		return nil, err
	}
	m.collector = NewGarbageCollector(client.Discovery(), dyn, cfg.period(DefaultGCResyncPeriod))
	return m, nil
}

// Run starts the informers and the controllers and blocks until ctx is
// done, then waits for every worker to return.
func (m *Manager) Run(ctx context.Context) error {
	m.factory.Start(ctx.Done())
	defer m.factory.Shutdown()
	var wg sync.WaitGroup
	run := func(f func(context.Context, int), workers int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx, workers)
		}()
	}
	run(m.replicas.Run, m.cfg.Workers)
	run(m.deploys.Run, m.cfg.Workers)
	run(m.collector.Run, m.cfg.GCWorkers)
	wg.Wait()
	return ctx.Err()
}
