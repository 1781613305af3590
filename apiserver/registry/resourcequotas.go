package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ResourceQuotas is core/v1 resourcequotas (quota), with upstream's
// strategies (pkg/registry/core/resourcequota): a new quota's status is
// reset, the status changes only through resourcequotas/status (the
// ResourceQuota admission plugin's and the resource quota controller's
// writes), a request above its limit is warned of on create.
var ResourceQuotas = &Resource{
	Kind:        corev1.SchemeGroupVersion.WithKind("ResourceQuota"),
	Plural:      "resourcequotas",
	Singular:    "resourcequota",
	ShortNames:  []string{"quota"},
	Namespaced:  true,
	NewFunc:     func() runtime.Object { return &corev1.ResourceQuota{} },
	NewListFunc: func() runtime.Object { return &corev1.ResourceQuotaList{} },
	Table:       printers.ResourceQuotas,
	Default:     upstreamDefaults(upcorev1.SetObjectDefaults_ResourceQuota, upcorev1.Convert_v1_ResourceQuota_To_core_ResourceQuota, upcorev1.Convert_core_ResourceQuota_To_v1_ResourceQuota),
	Strategy:    upstreamStrategy(resourcequota.Strategy, "", upcorev1.Convert_v1_ResourceQuota_To_core_ResourceQuota, upcorev1.Convert_core_ResourceQuota_To_v1_ResourceQuota),
	Status:      &ResourceQuotaStatusStrategy,
	// Upstream's store answers a delete with the quota removed.
	ReturnDeletedObject: true,
}

// ResourceQuotaStatusStrategy is the strategy of resourcequotas/status:
// it keeps the stored spec.
var ResourceQuotaStatusStrategy = upstreamStrategy(resourcequota.StatusStrategy, "status", upcorev1.Convert_v1_ResourceQuota_To_core_ResourceQuota, upcorev1.Convert_core_ResourceQuota_To_v1_ResourceQuota)
