package printers

import (
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// storageClassColumns are the columns of `kubectl get storageclasses`
// (upstream's storageClassColumnDefinitions).
var storageClassColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Provisioner", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["provisioner"]},
	{Name: "ReclaimPolicy", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["reclaimPolicy"]},
	{Name: "VolumeBindingMode", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["volumeBindingMode"]},
	{Name: "AllowVolumeExpansion", Type: "string", Description: storagev1.StorageClass{}.SwaggerDoc()["allowVolumeExpansion"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// storageClass prints NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE
// ALLOWVOLUMEEXPANSION AGE, as upstream's printStorageClass: an unset
// reclaimPolicy reads Delete, an unset volumeBindingMode Immediate.
func (p printer) storageClass(sc *storagev1.StorageClass) metav1.TableRow {
	reclaim, mode := "Delete", string(storagev1.VolumeBindingImmediate)
	if sc.ReclaimPolicy != nil {
		reclaim = string(*sc.ReclaimPolicy)
	}
	if sc.VolumeBindingMode != nil {
		mode = string(*sc.VolumeBindingMode)
	}
	expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return metav1.TableRow{
		Cells:  []any{sc.Name, sc.Provisioner, reclaim, mode, expand, p.since(sc.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: sc},
	}
}

// storageClassTable adds to a list's table what upstream's
// printStorageClassList adds: " (default)" after the name of the
// effective default class. A single class is printed without it, as
// upstream prints it.
type storageClassTable struct{ *Handler }

// ConvertToTable is Handler.ConvertToTable, with the list's default
// class marked.
func (t storageClassTable) ConvertToTable(obj runtime.Object, opts Options) (*metav1.Table, error) {
	table, err := t.Handler.ConvertToTable(obj, opts)
	if err != nil {
		return nil, err
	}
	list, ok := obj.(*storagev1.StorageClassList)
	if !ok {
		return table, nil
	}
	def := effectiveDefaultClass(list.Items)
	for i := range table.Rows {
		if sc, ok := table.Rows[i].Object.Object.(*storagev1.StorageClass); ok && def != "" && sc.Name == def {
			table.Rows[i].Cells[0] = sc.Name + " (default)"
		}
	}
	return table, nil
}

// isDefaultClass reports whether sc carries storageclass.kubernetes.io/is-default-class,
// and its beta form, set to "true".
func isDefaultClass(sc *storagev1.StorageClass) bool {
	return sc.Annotations["storageclass.kubernetes.io/is-default-class"] == "true" ||
		sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] == "true"
}

// effectiveDefaultClass is the name of the default class among items,
// as upstream's getEffectiveDefaultStorageClass: of those marked
// default, the newest, and of equally new ones the first by name; ""
// if none is marked.
func effectiveDefaultClass(items []storagev1.StorageClass) string {
	var def *storagev1.StorageClass
	for i := range items {
		sc := &items[i]
		if !isDefaultClass(sc) {
			continue
		}
		switch {
		case def == nil, sc.CreationTimestamp.After(def.CreationTimestamp.Time):
			def = sc
		case sc.CreationTimestamp.Equal(&def.CreationTimestamp) && sc.Name < def.Name:
			def = sc
		}
	}
	if def == nil {
		return ""
	}
	return def.Name
}

// StorageClasses prints storage classes.
var StorageClasses TableConvertor = storageClassTable{tableHandler(storageClassColumns, printer.storageClass)}
