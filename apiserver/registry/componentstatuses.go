package registry

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// ComponentStatuses is core/v1 componentstatuses (deprecated since
// v1.19, still served): get and list only, of objects the server
// computes at each request from the health of the scheduler, the
// controller manager and etcd, as upstream's
// pkg/registry/core/componentstatus; nothing is stored (the server's
// endpoint answers its reads, see apiserver/componentstatuses.go).
var ComponentStatuses = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("ComponentStatus"),
	Plural:       "componentstatuses",
	Singular:     "componentstatus",
	ShortNames:   []string{"cs"},
	NewFunc:      func() runtime.Object { return &corev1.ComponentStatus{} },
	NewListFunc:  func() runtime.Object { return &corev1.ComponentStatusList{} },
	Table:        printers.ComponentStatuses,
	Verbs:        []string{"get", "list"},
	NoWatchCache: true,
}
