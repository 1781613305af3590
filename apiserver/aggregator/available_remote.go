package aggregator

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/transport"
	"k8s.io/client-go/util/workqueue"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/kube-aggregator/pkg/apis/apiregistration/v1/helper"
	listers "k8s.io/kube-aggregator/pkg/client/listers/apiregistration/v1"
)

// Defaults and bounds of the remote availability check, upstream's.
const (
	// DefaultProbePeriod is how often every remote APIService is checked
	// again (upstream's resync of 30 s).
	DefaultProbePeriod = 30 * time.Second
	// probeAttempts discovery GETs run at once; one success is enough.
	probeAttempts = 5
	// probeTimeout bounds each GET.
	probeTimeout = 5 * time.Second
)

// The identity of the availability check, which the backend's
// requestheader authentication reads from X-Remote-User and
// X-Remote-Group: system:masters, so that authorization never fails it.
const (
	probeUser  = "system:kube-aggregator"
	probeGroup = "system:masters"
)

// RemoteAvailabilityConfig configures a RemoteAvailabilityController.
type RemoteAvailabilityConfig struct {
	Client     Client
	Resolver   Resolver
	ClientCert *tls.Certificate
	// Period is how often every remote APIService is checked again;
	// 0 means DefaultProbePeriod. A change of an APIService, or of the
	// address of its Service when Resolver is a ChangeNotifier, is
	// checked at once, and a failed check is retried with a back-off from
	// 5 ms to 30 s, as upstream's queue does.
	Period time.Duration
}

// RemoteAvailabilityController keeps the Available condition of every
// remote APIService, as upstream's remote-available controller: it
// resolves the service (ServiceNotFound if it cannot: kubesim's
// Resolver stands for the Service and its endpoints) and GETs the
// backend's discovery document /apis/<group>/<version> over the
// APIService's TLS configuration, as system:kube-aggregator in
// system:masters: any 2xx or 3xx is Passed ("all checks passed"), anything
// else FailedDiscoveryCheck with the error as message.
type RemoteAvailabilityController struct {
	cfg    RemoteAvailabilityConfig
	lister listers.APIServiceLister
	synced cache.DoneChecker
	queue  workqueue.TypedRateLimitingInterface[string]
}

// NewRemoteAvailabilityController watches informer (APIServices).
func NewRemoteAvailabilityController(informer cache.SharedIndexInformer, cfg RemoteAvailabilityConfig) (*RemoteAvailabilityController, error) {
	if cfg.Period <= 0 {
		cfg.Period = DefaultProbePeriod
	}
	c := &RemoteAvailabilityController{
		cfg:    cfg,
		lister: listers.NewAPIServiceLister(informer.GetIndexer()),
		synced: informer.HasSyncedChecker(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 30*time.Second),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "RemoteAvailabilityController"}),
	}
	if _, err := informer.AddEventHandler(nameHandler(c.queue.Add)); err != nil {
		return nil, err
	}
	if n, ok := cfg.Resolver.(ChangeNotifier); ok {
		n.OnChange(c.serviceChanged)
	}
	return c, nil
}

// serviceChanged queues the remote APIServices of service namespace/name.
func (c *RemoteAvailabilityController) serviceChanged(namespace, name string) {
	all, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, a := range all {
		if s := a.Spec.Service; s != nil && s.Namespace == namespace && s.Name == name {
			c.queue.Add(a.Name)
		}
	}
}

// Run checks until ctx is done: on every change (of an APIService, or of
// its Service's address if the Resolver reports those), and every Period.
func (c *RemoteAvailabilityController) Run(ctx context.Context) {
	defer utilruntime.HandleCrash()
	defer c.queue.ShutDown()
	if !cache.WaitFor(ctx, "", c.synced) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(c.cfg.Period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				c.queue.ShutDown()
				return
			case <-t.C:
				c.enqueueRemote()
			}
		}
	}()
	defer func() { <-done }()
	for processNext(c.queue, func(name string) error { return c.sync(ctx, name) }) {
	}
}

// enqueueRemote queues every remote APIService.
func (c *RemoteAvailabilityController) enqueueRemote() {
	all, err := c.lister.List(labels.Everything())
	if err != nil {
		return
	}
	for _, a := range all {
		if a.Spec.Service != nil {
			c.queue.Add(a.Name)
		}
	}
}

// sync checks the APIService called name and writes its condition if it
// changed. A failed discovery check is returned as an error, so that the
// queue retries it with back-off.
func (c *RemoteAvailabilityController) sync(ctx context.Context, name string) error {
	orig, err := c.lister.Get(name)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return err
	case orig.Spec.Service == nil:
		return nil // the local controller's
	}
	a := orig.DeepCopy()
	cond, probeErr := c.check(ctx, a)
	helper.SetAPIServiceCondition(a, cond)
	if err := updateStatus(ctx, c.cfg.Client, orig, a); err != nil {
		return err
	}
	return probeErr
}

// check returns the Available condition of a, and the discovery check's
// error when it failed.
func (c *RemoteAvailabilityController) check(ctx context.Context, a *apiregv1.APIService) (apiregv1.APIServiceCondition, error) {
	cond := apiregv1.APIServiceCondition{Type: apiregv1.Available, Status: apiregv1.ConditionTrue, LastTransitionTime: metav1.Now()}
	svc := a.Spec.Service
	loc, err := c.cfg.Resolver.ResolveEndpoint(svc.Namespace, svc.Name, port(svc))
	if err != nil {
		cond.Status, cond.Reason = apiregv1.ConditionFalse, "ServiceNotFound"
		cond.Message = fmt.Sprintf("service/%s in %q is not present", svc.Name, svc.Namespace)
		return cond, nil
	}
	loc.Path = "/apis/" + a.Spec.Group + "/" + a.Spec.Version
	if a.Name == "v1." {
		loc.Path = "/api/" + a.Spec.Version
	}
	if err := c.probe(ctx, a, loc.String()); err != nil {
		cond.Status, cond.Reason, cond.Message = apiregv1.ConditionFalse, "FailedDiscoveryCheck", err.Error()
		return cond, err
	}
	cond.Reason, cond.Message = "Passed", "all checks passed"
	return cond, nil
}

// probe GETs url probeAttempts times at once and returns nil if one
// answered 2xx or 3xx, the last error otherwise.
func (c *RemoteAvailabilityController) probe(ctx context.Context, a *apiregv1.APIService, url string) error {
	tr, err := backendTransport(a, c.cfg.ClientCert)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: tr, Timeout: probeTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan error, probeAttempts)
	for range probeAttempts {
		go func() { results <- probeOnce(ctx, client, url) }()
	}
	// The first success cancels the other attempts; all are waited for,
	// so that no connection of tr is still busy, and left open, when its
	// idle ones are closed.
	var last error
	succeeded := false
	for range probeAttempts {
		if err := <-results; err == nil && !succeeded {
			succeeded = true
			cancel()
		} else if !succeeded {
			last = err
		}
	}
	tr.CloseIdleConnections()
	if succeeded {
		return nil
	}
	return last
}

// probeOnce is one discovery GET of the availability check.
func probeOnce(ctx context.Context, client *http.Client, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	transport.SetAuthProxyHeaders(req, probeUser, "", []string{probeGroup}, nil)
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("failing or missing response from %v: %w", url, err)
	}
	resp.Body.Close()
	if resp.StatusCode < http.StatusOK || resp.StatusCode >= http.StatusMultipleChoices {
		return fmt.Errorf("bad status from %v: %d", url, resp.StatusCode)
	}
	return nil
}
