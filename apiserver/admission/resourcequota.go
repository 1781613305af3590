package admission

import (
	"context"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	quota "k8s.io/apiserver/pkg/quota/v1"
	"k8s.io/apiserver/pkg/quota/v1/generic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/quota/v1/evaluator/core"
	"k8s.io/kubernetes/pkg/quota/v1/install"
)

// ResourceQuotaName is the ResourceQuota plugin's name.
const ResourceQuotaName = resourcequota.PluginName

// quotaEvaluators is kube-apiserver's number of quota evaluation workers.
const quotaEvaluators = 5

// ResourceQuota is kube-apiserver's ResourceQuota plugin
// (k8s.io/apiserver/pkg/admission/plugin/resourcequota), with
// kube-apiserver's quota configuration (pkg/quota/v1/install) and no
// configuration file. Validating: a create (or an update that changes
// usage) in a namespace with ResourceQuotas is checked against each
// quota that matches it; over one it is refused with 403 and upstream's
// message (`pods "p" is forbidden: exceeded quota: q, requested:
// pods=1, used: pods=2, limited: pods=2`; for a quota on compute
// resources, `failed quota: q: must specify limits.cpu for: c`), else
// each quota's status.used is raised by the request's usage (not on a
// dry run) before the write goes on, as upstream's does. Safe for
// concurrent use.
type ResourceQuota struct {
	plugin *resourcequota.QuotaAdmission
}

var _ ValidatingPlugin = (*ResourceQuota)(nil)

// NewResourceQuota returns the plugin reading ResourceQuotas from f's
// informer (which the caller starts) and writing their status through
// client; its evaluation workers run until stop is closed.
func NewResourceQuota(f informers.SharedInformerFactory, client kubernetes.Interface, stop <-chan struct{}) (*ResourceQuota, error) {
	p, err := resourcequota.NewResourceQuota(nil, quotaEvaluators)
	if err != nil {
		return nil, err
	}
	p.SetDrainedNotification(stop)
	p.SetExternalKubeClientSet(client)
	p.SetExternalKubeInformerFactory(f)
	config, err := QuotaConfiguration()
	if err != nil {
		return nil, err
	}
	p.SetQuotaConfiguration(config)
	if err := p.ValidateInitialization(); err != nil {
		return nil, err
	}
	return &ResourceQuota{plugin: p}, nil
}

// QuotaConfiguration is kube-apiserver's quota configuration for
// admission (install.NewQuotaConfigurationForAdmission) as it is with
// resource.k8s.io not served, which kubesim does not serve: the pods,
// services and persistentvolumeclaims evaluators, the object counts of
// configmaps, resourcequotas, replicationcontrollers and secrets, and
// events ignored.
func QuotaConfiguration() (quota.Configuration, error) {
	claims := resourcev1.SchemeGroupVersion.WithResource("resourceclaims")
	evaluators, err := core.NewEvaluators(nil, nil, func(gvr schema.GroupVersionResource) bool { return gvr != claims })
	if err != nil {
		return nil, err
	}
	return generic.NewConfiguration(evaluators, install.DefaultIgnoredResources()), nil
}

// Name returns "ResourceQuota".
func (*ResourceQuota) Name() string { return ResourceQuotaName }

// Handles reports whether upstream's ResourceQuota handles op (creates and updates).
func (*ResourceQuota) Handles(op Operation) bool { return handles(op, Create, Update) }

// Validate runs upstream's Validate on creates and updates. The objects
// are the v1 ones: upstream's evaluators read v1 objects (they convert
// internal ones to v1 first).
func (q *ResourceQuota) Validate(ctx context.Context, a *Attributes) (bool, error) {
	if a.Operation != Create && a.Operation != Update {
		return false, nil
	}
	if a.Namespace == "" {
		return false, nil
	}
	return true, q.plugin.Validate(ctx, upstreamAttributes(a, a.Object, a.OldObject), nil)
}
