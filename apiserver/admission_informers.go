package apiserver

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// admissionInformers are what kube-apiserver's own admission plugins
// (LimitRanger, ResourceQuota) get from its plugin initializer: a shared
// informer factory and a client. Here the informers list and watch the
// registry's stores in the process, and the client reads and writes
// them, where upstream's go through its loopback client.
type admissionInformers struct {
	factory informers.SharedInformerFactory
	client  kubernetes.Interface
	// stop ends the ResourceQuota plugin's evaluation workers (upstream's
	// drained notification); Run closes it.
	stop chan struct{}
	// synced is set once every informer has listed (the readiness check
	// informer-sync).
	synced atomic.Bool
}

// newAdmissionInformers returns the informers of the LimitRanges and
// ResourceQuotas of reg, not started: Run starts them.
func newAdmissionInformers(reg *registry.Registry) *admissionInformers {
	f := informers.NewSharedInformerFactory(nil, 0)
	namespaced := cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}
	for _, r := range []struct {
		res     *registry.Resource
		example runtime.Object
	}{{registry.LimitRanges, &corev1.LimitRange{}}, {registry.ResourceQuotas, &corev1.ResourceQuota{}}} {
		st := reg.Store(r.res)
		f.InformerFor(r.example, func(kubernetes.Interface, time.Duration) cache.SharedIndexInformer {
			return registry.NewInformer(st, r.example, namespaced)
		})
	}
	return &admissionInformers{factory: f, client: storeClientset{reg: reg}, stop: make(chan struct{})}
}

// Run runs the informers until ctx is done, then stops them and the
// plugins' workers.
func (i *admissionInformers) Run(ctx context.Context) {
	i.factory.Start(ctx.Done())
	i.factory.WaitForCacheSync(ctx.Done())
	i.synced.Store(ctx.Err() == nil)
	<-ctx.Done()
	close(i.stop)
	i.factory.Shutdown()
}

// storeClientset is the admission plugins' client: of kubernetes.Interface
// it has only what they call (the list of a namespace's LimitRanges and
// ResourceQuotas, the update of a quota's status); anything else panics.
type storeClientset struct {
	kubernetes.Interface
	reg *registry.Registry
}

func (c storeClientset) CoreV1() corev1client.CoreV1Interface { return storeCoreV1{reg: c.reg} }

type storeCoreV1 struct {
	corev1client.CoreV1Interface
	reg *registry.Registry
}

func (c storeCoreV1) LimitRanges(namespace string) corev1client.LimitRangeInterface {
	return storeLimitRanges{st: c.reg.Store(registry.LimitRanges), namespace: namespace}
}

func (c storeCoreV1) ResourceQuotas(namespace string) corev1client.ResourceQuotaInterface {
	return storeResourceQuotas{st: c.reg.Store(registry.ResourceQuotas), status: c.reg.StatusStore(registry.ResourceQuotas), namespace: namespace}
}

type storeLimitRanges struct {
	corev1client.LimitRangeInterface
	st        *registry.Store
	namespace string
}

func (c storeLimitRanges) List(ctx context.Context, _ metav1.ListOptions) (*corev1.LimitRangeList, error) {
	out, err := c.st.List(ctx, c.namespace, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.LimitRangeList), nil
}

type storeResourceQuotas struct {
	corev1client.ResourceQuotaInterface
	st, status *registry.Store
	namespace  string
}

func (c storeResourceQuotas) List(ctx context.Context, _ metav1.ListOptions) (*corev1.ResourceQuotaList, error) {
	out, err := c.st.List(ctx, c.namespace, &metainternalversion.ListOptions{})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.ResourceQuotaList), nil
}

// UpdateStatus writes q's status, if q's resourceVersion is still the
// stored one (409 Conflict otherwise, which the plugin retries on).
func (c storeResourceQuotas) UpdateStatus(ctx context.Context, q *corev1.ResourceQuota, _ metav1.UpdateOptions) (*corev1.ResourceQuota, error) {
	next := q.DeepCopy()
	out, _, err := c.status.Update(ctx, c.namespace, q.Name, func(context.Context, runtime.Object) (runtime.Object, error) { return next, nil }, nil, nil, registry.Options{})
	if err != nil {
		return nil, err
	}
	return out.(*corev1.ResourceQuota), nil
}

// add appends the plugin name (LimitRanger, mutating and validating, or
// ResourceQuota, validating only, as upstream's) to c; a nil i adds
// nothing.
func (i *admissionInformers) add(c *admission.Chain, name string) error {
	if i == nil {
		return nil
	}
	switch name {
	case admission.LimitRangerName:
		p, err := admission.NewLimitRanger(i.factory, i.client)
		if err != nil {
			return err
		}
		c.Mutating, c.Validating = append(c.Mutating, p), append(c.Validating, p)
	case admission.ResourceQuotaName:
		p, err := admission.NewResourceQuota(i.factory, i.client, i.stop)
		if err != nil {
			return err
		}
		c.Validating = append(c.Validating, p)
	}
	return nil
}

// errInformersNotSynced is informer-sync's failure until the admission
// informers have listed.
var errInformersNotSynced = errors.New("the admission plugins' informers have not synced")

// syncedCheck is kube-apiserver's readiness check informer-sync: until
// the LimitRange and ResourceQuota informers have listed, the
// ResourceQuota plugin would read quotas from a 30-second cache of live
// lookups made before they were created, and admit pods over them.
func (i *admissionInformers) syncedCheck(*http.Request) error {
	if i == nil || i.synced.Load() {
		return nil
	}
	return errInformersNotSynced
}
