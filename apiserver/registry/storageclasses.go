package registry

import (
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	_ "k8s.io/kubernetes/pkg/apis/storage/install" // legacyscheme: storage's versions, conversions and declarative validation
	upstoragev1 "k8s.io/kubernetes/pkg/apis/storage/v1"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// StorageClasses is storage.k8s.io/v1 storageclasses, cluster-scoped,
// with upstream's strategy (pkg/registry/storage/storageclass): the
// provisioner, parameters, reclaimPolicy and volumeBindingMode cannot
// change after create; reclaimPolicy defaults to Delete and
// volumeBindingMode to Immediate; a delete answers the class.
var StorageClasses = &Resource{
	Kind:                storagev1.SchemeGroupVersion.WithKind("StorageClass"),
	Plural:              "storageclasses",
	Singular:            "storageclass",
	ShortNames:          []string{"sc"},
	ReturnDeletedObject: true,
	NewFunc:             func() runtime.Object { return &storagev1.StorageClass{} },
	NewListFunc:         func() runtime.Object { return &storagev1.StorageClassList{} },
	Table:               printers.StorageClasses,
	Default:             upstreamDefaults(upstoragev1.SetObjectDefaults_StorageClass, upstoragev1.Convert_v1_StorageClass_To_storage_StorageClass, upstoragev1.Convert_storage_StorageClass_To_v1_StorageClass),
	Strategy:            upstreamStrategy(storageclass.Strategy, "", upstoragev1.Convert_v1_StorageClass_To_storage_StorageClass, upstoragev1.Convert_storage_StorageClass_To_v1_StorageClass),
}
