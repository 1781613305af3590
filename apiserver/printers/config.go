package printers

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
)

// configMapColumns are the columns of `kubectl get configmaps`.
var configMapColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Data", Type: "string", Description: corev1.ConfigMap{}.SwaggerDoc()["data"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// configMap prints NAME DATA AGE; DATA counts the keys of data and
// binaryData.
func (p printer) configMap(cm *corev1.ConfigMap) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), p.since(cm.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: cm},
	}
}

// secretColumns are the columns of `kubectl get secrets`.
var secretColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Type", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["type"]},
	{Name: "Data", Type: "string", Description: corev1.Secret{}.SwaggerDoc()["data"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// secret prints NAME TYPE DATA AGE; DATA counts the keys of data.
func (p printer) secret(s *corev1.Secret) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{s.Name, string(s.Type), int64(len(s.Data)), p.since(s.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: s},
	}
}

// serviceAccountColumns are the columns of `kubectl get serviceaccounts`:
// kube-apiserver v1.37 prints no SECRETS column.
var serviceAccountColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// serviceAccount prints NAME AGE.
func (p printer) serviceAccount(sa *corev1.ServiceAccount) metav1.TableRow {
	return metav1.TableRow{
		Cells:  []any{sa.Name, p.since(sa.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: sa},
	}
}

// ConfigMaps prints config maps.
var ConfigMaps = tableHandler(configMapColumns, printer.configMap)

// Secrets prints secrets.
var Secrets = tableHandler(secretColumns, printer.secret)

// ServiceAccounts prints service accounts.
var ServiceAccounts = tableHandler(serviceAccountColumns, printer.serviceAccount)

// podTemplateColumns are the columns of `kubectl get podtemplates`, as
// upstream's printer has them (no AGE).
var podTemplateColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Containers", Type: "string", Description: "Names of each container in the template."},
	{Name: "Images", Type: "string", Description: "Images referenced by each container in the template."},
	{Name: "Pod Labels", Type: "string", Description: "The labels for the pod template."},
}

// podTemplate prints NAME CONTAINERS IMAGES POD LABELS.
func (p printer) podTemplate(t *corev1.PodTemplate) metav1.TableRow {
	names, images := containerCells(t.Template.Spec.Containers)
	return metav1.TableRow{
		Cells:  []any{t.Name, names, images, labels.FormatLabels(t.Template.Labels)},
		Object: runtime.RawExtension{Object: t},
	}
}

// PodTemplates prints pod templates.
var PodTemplates = tableHandler(podTemplateColumns, printer.podTemplate)
