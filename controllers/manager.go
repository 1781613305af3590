package controllers

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/kubesim/kubesim/internal/informertrim"
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
	// system:kube-controller-manager: the shared informers use it, and
	// with UseServiceAccountCredentials it makes the controllers'
	// service accounts and asks for their tokens.
	REST *rest.Config
	// UseServiceAccountCredentials gives each controller a client of its
	// own, authenticated as the service account kube-system/<controller>
	// (kube-controller-manager's --use-service-account-credentials,
	// which kubeadm sets); without it every controller uses REST.
	UseServiceAccountCredentials bool
	// Speed divides upstream's periods (the expectations timeout, the
	// garbage collector's rediscovery); 0 divides them by
	// ZeroSpeedDivisor.
	Speed float64
	// NodeMonitorGracePeriod is kube-controller-manager's
	// --node-monitor-grace-period as given, not divided by Speed; 0: the
	// default (50 s) scaled by NodeHealthSpeed(Speed).
	NodeMonitorGracePeriod time.Duration
	// Workers and GCWorkers are the workers per controller.
	Workers, GCWorkers int
	// Observer, if set, receives each controller's actions with their
	// evidence (see Action).
	Observer Observer
	// Identity names this instance among the controller managers that
	// may run side by side: its leader election identity
	// (kube-controller-manager's is hostname_uuid; kubesim's
	// "kubesim-controller-manager-1_<uuid>"). Each Action carries it.
	// Empty: not said.
	Identity string
	// ClusterSigningCertFile and ClusterSigningKeyFile are the CA the
	// CSR signers sign with (kube-controller-manager's
	// --cluster-signing-cert-file and --cluster-signing-key-file); empty:
	// no signer runs. ClusterSigningDuration is the longest validity
	// they give (0: DefaultClusterSigningDuration).
	ClusterSigningCertFile, ClusterSigningKeyFile string
	ClusterSigningDuration                        time.Duration
}

// NewConfig returns the defaults for a manager that reaches the API
// through rc.
func NewConfig(rc *rest.Config) *Config {
	return &Config{REST: rc, UseServiceAccountCredentials: true, Speed: DefaultSpeed,
		Workers: DefaultWorkers, GCWorkers: DefaultGCWorkers}
}

// Validate reports what is wrong with c.
func (c *Config) Validate() error {
	switch {
	case c.REST == nil:
		return errors.New("controllers: no REST config")
	case c.Speed < 0:
		return fmt.Errorf("controllers: speed %v is negative", c.Speed)
	case c.NodeMonitorGracePeriod < 0:
		return fmt.Errorf("controllers: node monitor grace period %v is negative", c.NodeMonitorGracePeriod)
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
	cfg     *Config
	client  kubernetes.Interface // the manager's own
	factory informers.SharedInformerFactory
	runs    []builtController
	// mapper, when a controller asked for one, is reset while Run runs.
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

// builtController is a controller made by New, ready to run.
type builtController struct {
	name    string
	run     runFunc
	workers int
}

// New returns a manager for cfg with its controllers' informers set up
// but not started. Each controller gets the client upstream gives it,
// by name; the informers use the manager's own.
func New(cfg *Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	own := managerCredentials{rc: cfg.REST}
	client, err := kubernetes.NewForConfig(own.config("shared-informers"))
	if err != nil {
		return nil, fmt.Errorf("controllers: %w", err)
	}
	var creds clientConfigs = own
	if cfg.UseServiceAccountCredentials {
		creds = newServiceAccountCredentials(cfg.REST, client.CoreV1())
	}
	m := &Manager{cfg: cfg, client: client, factory: informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithTransform(informertrim.ManagedFields))}
	cc := &controllerContext{cfg: cfg, factory: m.factory, creds: creds, own: own}
	for _, d := range newControllerDescriptors() {
		run, err := d.build(cc)
		if err != nil {
			return nil, fmt.Errorf("controllers: %s: %w", d.name, err)
		}
		m.runs = append(m.runs, builtController{name: d.name, run: run, workers: d.workers(cfg)})
	}
	m.mapper = cc.mapper
	return m, nil
}

// Run makes the controllers' service accounts (with
// UseServiceAccountCredentials), starts the informers and the
// controllers and blocks until ctx is done, then waits for every worker
// to return.
func (m *Manager) Run(ctx context.Context) error {
	if m.cfg.UseServiceAccountCredentials {
		if err := m.ensureServiceAccounts(ctx); err != nil {
			return err
		}
	}
	m.factory.Start(ctx.Done())
	defer m.factory.Shutdown()
	var wg sync.WaitGroup
	if m.mapper != nil {
		wg.Go(func() { runMapperReset(ctx, m.mapper) })
	}
	for _, c := range m.runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.run(ctx, c.workers)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// ensureServiceAccounts makes kube-system/<controller> for each
// controller that does not have it yet, in the order of
// newControllerDescriptors, as upstream does when it builds
// a controller's client (its tokens' requests make sure again).
func (m *Manager) ensureServiceAccounts(ctx context.Context) error {
	for _, c := range m.runs {
		var last error
		err := wait.ExponentialBackoffWithContext(ctx, tokenBackoff(), func(ctx context.Context) (bool, error) {
			last = ensureServiceAccount(ctx, m.client.CoreV1(), c.name)
			return last == nil, nil
		})
		if err != nil {
			return fmt.Errorf("controllers: service account %s/%s: %w (last error: %v)", ControllerNamespace, c.name, err, last)
		}
	}
	return nil
}
