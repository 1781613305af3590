package printers

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// apiServiceColumns are the columns of `kubectl get apiservices`, as the
// aggregator's table convertor defines them.
var apiServiceColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"]},
	{Name: "Service", Type: "string", Description: "The reference to the service that hosts this API endpoint."},
	{Name: "Available", Type: "string", Description: "Whether this service is available."},
	{Name: "Age", Type: "string", Description: objectMetaDoc["creationTimestamp"]},
}

// apiService prints one APIService: NAME SERVICE AVAILABLE AGE. SERVICE is
// "Local" for an APIService kube-apiserver serves itself and
// <namespace>/<name> otherwise; AVAILABLE is the Available condition's
// status, with its reason in parentheses when it is not True
// ("False (FailedDiscoveryCheck)"), and Unknown without the condition.
func (p printer) apiService(a *apiregv1.APIService) metav1.TableRow {
	service := "Local"
	if a.Spec.Service != nil {
		service = a.Spec.Service.Namespace + "/" + a.Spec.Service.Name
	}
	status := string(apiregv1.ConditionUnknown)
	for _, c := range a.Status.Conditions {
		if c.Type != apiregv1.Available {
			continue
		}
		status = string(c.Status)
		if c.Status != apiregv1.ConditionTrue && c.Reason != "" {
			status = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
		}
		break
	}
	return metav1.TableRow{
		Cells:  []any{a.Name, service, status, p.since(a.CreationTimestamp.Time)},
		Object: runtime.RawExtension{Object: a},
	}
}

// APIServices prints API services.
var APIServices = tableHandler(apiServiceColumns, printer.apiService)
