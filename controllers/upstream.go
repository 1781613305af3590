package controllers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"
)

// The controllers of the workloads kinds (StatefulSet, DaemonSet, Job,
// CronJob, the TTL-after-finished, disruption and HPA controllers, and
// the replication manager) are upstream's own, k8s.io/kubernetes
// v1.37.2 pkg/controller, built here as kube-controller-manager builds
// them (cmd/kube-controller-manager/app apps.go, batch.go, policy.go,
// autoscaling.go, core.go): the same constructors, informers, clients
// and periods. kubesim adds only what a learner is shown: each of their
// writes is reported as an Action (upstreamWrites). Their decisions are
// upstream's and are not reported, since upstream's code does not hand
// them out; their Events say them, as on a real cluster.

// upstreamBuild is what an upstream controller's descriptor gives
// controllerContext.upstream: it makes the controller with the run's context (upstream's
// constructors take the one kube-controller-manager runs them with),
// its own client and that client's rest.Config (for the scale and
// metrics clients), and returns its Run.
type upstreamBuild func(ctx context.Context, client kubernetes.Interface, rc *rest.Config) (runFunc, error)

// upstream returns the runFunc of the upstream controller name made by
// build. The client has the controller's own credentials; with an
// Observer, each write it sends is reported as an Action once answered.
// The controller is made when it runs, with the run's context, and the
// shared informers it asks for then are started (the factory starts
// only those not started yet); its Run waits for their caches. A
// controller that cannot be made logs why and does not run.
func (c *controllerContext) upstream(name string, build upstreamBuild) (runFunc, error) {
	rc := c.restConfig(name)
	if c.cfg.Observer != nil {
		rc.Wrap(func(rt http.RoundTripper) http.RoundTripper { return upstreamWrites{next: rt, name: name, cfg: c.cfg} })
	}
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return func(ctx context.Context, workers int) {
		run, err := build(ctx, client, rc)
		if err != nil {
			klog.FromContext(ctx).Error(err, "Could not make the controller", "controller", name)
			return
		}
		c.factory.Start(ctx.Done())
		run(ctx, workers)
	}, nil
}

// upstreamWrites is the transport upstream adds to a controller's client: it reports each
// write as an Action of its own, keyed by the object written; a create
// that made an object (201) is reported with Created, the object's
// uid and its controller ownerReference, as a ReplicaSet's pods are.
type upstreamWrites struct {
	next http.RoundTripper
	name string
	cfg  *Config
}

func (t upstreamWrites) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isWrite(req.Method) {
		return t.next.RoundTrip(req)
	}
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	w := Write{Method: req.Method}
	w.Resource, w.Subresource, w.Namespace, w.Name = apiPathParts(req.URL.Path, "")
	a := Action{Time: start, Controller: t.name, Upstream: true}
	if err != nil {
		w.Error = err.Error()
	} else {
		w.Code = resp.StatusCode
		if req.Method == http.MethodPost && resp.StatusCode == http.StatusCreated && w.Subresource == "" {
			t.noteCreated(resp, &w, &a)
		}
	}
	a.Key = w.Name
	if w.Namespace != "" {
		a.Key = w.Namespace + "/" + w.Name
	}
	a.Calls = []Write{w}
	if a.Created != nil {
		a.Created = &a.Calls[0]
	}
	t.cfg.observe(a)
	return resp, err
}

// noteCreated reads the object a create made from the answer's body, in
// JSON or protobuf (and puts the body back for the client): its name
// (a pod made with generateName has it only there), uid and controller,
// into w and a.
func (t upstreamWrites) noteCreated(resp *http.Response, w *Write, a *Action) {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return
	}
	obj, gvk, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return
	}
	w.Name, w.UID = m.GetName(), m.GetUID()
	a.Object = ObjectRef{APIVersion: gvk.GroupVersion().String(), Kind: gvk.Kind, Namespace: m.GetNamespace(), Name: m.GetName(), UID: m.GetUID()}
	a.Owner = metav1.GetControllerOfNoCopy(m)
	a.Created = w
}

// restMapperResetPeriod is how often kube-controller-manager forgets
// the discovery its RESTMapper caches (controllermanager.go, 30 s).
const restMapperResetPeriod = 30 * time.Second

// restMapper returns the manager's RESTMapper, made on first use: a
// deferred discovery mapper over a cached discovery client, as
// kube-controller-manager's ControllerContext.RESTMapper, which the
// disruption and HPA controllers use to find a scale subresource.
func (c *controllerContext) restMapper() (*restmapper.DeferredDiscoveryRESTMapper, error) {
	if c.mapper != nil {
		return c.mapper, nil
	}
	cs, err := kubernetes.NewForConfig(c.own.config("shared-informers"))
	if err != nil {
		return nil, err
	}
	c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(cs.Discovery()))
	return c.mapper, nil
}

// runMapperReset resets m every restMapperResetPeriod until ctx is done.
func runMapperReset(ctx context.Context, m *restmapper.DeferredDiscoveryRESTMapper) {
	wait.UntilWithContext(ctx, func(context.Context) { m.Reset() }, restMapperResetPeriod)
}
