package printers

import (
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// controllerRevisionColumns are the columns of `kubectl get
// controllerrevisions`.
var controllerRevisionColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Controller", Type: "string", Description: "Controller of the object"},
	{Name: "Revision", Type: "string", Description: appsv1.ControllerRevision{}.SwaggerDoc()["revision"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// controllerRevision prints one revision: NAME CONTROLLER REVISION AGE,
// CONTROLLER being "statefulset.apps/web" for a revision a StatefulSet
// controls, or <none>.
func (p printer) controllerRevision(cr *appsv1.ControllerRevision) metav1.TableRow {
	controller := "<none>"
	if ref := metav1.GetControllerOf(cr); ref != nil {
		if gv, err := schema.ParseGroupVersion(ref.APIVersion); err == nil {
			controller = strings.ToLower(gv.WithKind(ref.Kind).GroupKind().String()) + "/" + ref.Name
		} else {
			controller = ref.Name
		}
	}
	return metav1.TableRow{
		Cells:  []any{cr.Name, controller, cr.Revision, p.since(cr.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: cr},
	}
}

// ControllerRevisions prints controller revisions.
var ControllerRevisions = tableHandler(controllerRevisionColumns, printer.controllerRevision)
