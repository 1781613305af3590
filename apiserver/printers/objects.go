package printers

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// objectTable prints the kinds a class creates first (configmaps,
// secrets, service accounts, services, endpoints, endpoint slices,
// deployments, replica sets), one object or a list; ok is false for any
// other kind.
func (p printer) objectTable(obj runtime.Object) (columns []metav1.TableColumnDefinition, rows []metav1.TableRow, ok bool) {
	one := func(c []metav1.TableColumnDefinition, r metav1.TableRow) ([]metav1.TableColumnDefinition, []metav1.TableRow, bool) {
		return c, []metav1.TableRow{r}, true
	}
	switch o := obj.(type) {
	case *corev1.ConfigMap:
		return one(configMapColumns, p.configMap(o))
	case *corev1.ConfigMapList:
		return configMapColumns, eachRow(o.Items, p.configMap), true
	case *corev1.Secret:
		return one(secretColumns, p.secret(o))
	case *corev1.SecretList:
		return secretColumns, eachRow(o.Items, p.secret), true
	case *corev1.ServiceAccount:
		return one(serviceAccountColumns, p.serviceAccount(o))
	case *corev1.ServiceAccountList:
		return serviceAccountColumns, eachRow(o.Items, p.serviceAccount), true
	case *corev1.Service:
		return one(serviceColumns, p.service(o))
	case *corev1.ServiceList:
		return serviceColumns, eachRow(o.Items, p.service), true
	case *corev1.Endpoints:
		return one(endpointsColumns, p.endpoints(o))
	case *corev1.EndpointsList:
		return endpointsColumns, eachRow(o.Items, p.endpoints), true
	case *appsv1.Deployment:
		return one(deploymentColumns, p.deployment(o))
	case *appsv1.DeploymentList:
		return deploymentColumns, eachRow(o.Items, p.deployment), true
	case *appsv1.ReplicaSet:
		return one(replicaSetColumns, p.replicaSet(o))
	case *appsv1.ReplicaSetList:
		return replicaSetColumns, eachRow(o.Items, p.replicaSet), true
	case *discoveryv1.EndpointSlice:
		return one(endpointSliceColumns, p.endpointSlice(o))
	case *discoveryv1.EndpointSliceList:
		return endpointSliceColumns, eachRow(o.Items, p.endpointSlice), true
	}
	return nil, nil, false
}
