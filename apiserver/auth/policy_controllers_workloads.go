package auth

import rbacv1 "k8s.io/api/rbac/v1"

// workloadControllerRoles are upstream's system:controller:<name> roles
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy/controller_policy.go,
// v1.37, default feature gates) of the workload controllers, which
// kubesim's controller manager runs as upstream's own code.
func workloadControllerRoles() map[string][]rbacv1.PolicyRule {
	return map[string][]rbacv1.PolicyRule{
		"cronjob-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(batchGroup).resources("cronjobs"),
			allow(VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbDelete, VerbPatch).groups(batchGroup).resources("jobs"),
			allow(VerbUpdate).groups(batchGroup).resources("cronjobs/status"),
			allow(VerbUpdate).groups(batchGroup).resources("cronjobs/finalizers"),
			allow(VerbList, VerbWatch, VerbDelete).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"daemon-set-controller": rules(
			allow(readVerbs...).groups(extensionsGroup, appsGroup).resources("daemonsets"),
			allow(VerbUpdate).groups(extensionsGroup, appsGroup).resources("daemonsets/status"),
			allow(VerbUpdate).groups(extensionsGroup, appsGroup).resources("daemonsets/finalizers"),
			allow(VerbList, VerbWatch).groups(coreGroup).resources("nodes"),
			allow(VerbList, VerbWatch, VerbCreate, VerbDelete, VerbPatch).groups(coreGroup).resources("pods"),
			allow(VerbCreate).groups(coreGroup).resources("pods/binding"),
			allow(VerbGet, VerbList, VerbWatch, VerbCreate, VerbDelete, VerbUpdate, VerbPatch).groups(appsGroup).resources("controllerrevisions"),
			eventsWriteRule()),
		"disruption-controller": rules(
			allow(readVerbs...).groups(extensionsGroup, appsGroup).resources("deployments"),
			allow(readVerbs...).groups(appsGroup, extensionsGroup).resources("replicasets"),
			allow(readVerbs...).groups(coreGroup).resources("replicationcontrollers"),
			allow(readVerbs...).groups(policyGroup).resources("poddisruptionbudgets"),
			allow(readVerbs...).groups(appsGroup).resources("statefulsets"),
			allow(VerbUpdate).groups(policyGroup).resources("poddisruptionbudgets/status"),
			allow(VerbPatch, VerbUpdate).groups(coreGroup).resources("pods/status"),
			allow(VerbGet).groups(rbacv1.APIGroupAll).resources("*/scale"),
			eventsWriteRule()),
		"horizontal-pod-autoscaler": rules(
			allow(readVerbs...).groups(autoscalingGroup).resources("horizontalpodautoscalers"),
			allow(VerbUpdate).groups(autoscalingGroup).resources("horizontalpodautoscalers/status"),
			allow(VerbGet, VerbUpdate).groups(rbacv1.APIGroupAll).resources("*/scale"),
			allow(VerbList, VerbWatch).groups(coreGroup).resources("pods"),
			allow(VerbList, VerbWatch).groups("metrics.k8s.io").resources("pods"),
			allow(readVerbs...).groups("custom.metrics.k8s.io").resources(rbacv1.ResourceAll),
			allow(readVerbs...).groups("external.metrics.k8s.io").resources(rbacv1.ResourceAll),
			eventsWriteRule()),
		"job-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate, VerbPatch).groups(batchGroup).resources("jobs"),
			allow(VerbUpdate).groups(batchGroup).resources("jobs/status"),
			allow(VerbUpdate).groups(batchGroup).resources("jobs/finalizers"),
			allow(VerbList, VerbWatch, VerbCreate, VerbDelete, VerbPatch).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"replication-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(coreGroup).resources("replicationcontrollers"),
			allow(VerbUpdate).groups(coreGroup).resources("replicationcontrollers/status"),
			allow(VerbUpdate).groups(coreGroup).resources("replicationcontrollers/finalizers"),
			allow(VerbList, VerbWatch, VerbPatch, VerbCreate, VerbDelete).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"statefulset-controller": rules(
			allow(VerbList, VerbWatch).groups(coreGroup).resources("pods"),
			allow(readVerbs...).groups(appsGroup).resources("statefulsets"),
			allow(VerbUpdate).groups(appsGroup).resources("statefulsets/status"),
			allow(VerbUpdate).groups(appsGroup).resources("statefulsets/finalizers"),
			allow(VerbGet, VerbCreate, VerbDelete, VerbUpdate, VerbPatch).groups(coreGroup).resources("pods"),
			allow(VerbGet, VerbCreate, VerbDelete, VerbUpdate, VerbPatch, VerbList, VerbWatch).groups(appsGroup).resources("controllerrevisions"),
			allow(VerbGet, VerbCreate, VerbList, VerbWatch).groups(coreGroup).resources("persistentvolumeclaims"),
			allow(VerbUpdate, VerbDelete).groups(coreGroup).resources("persistentvolumeclaims"),
			allow(VerbUpdate).groups(coreGroup).resources("pods/finalizers"),
			eventsWriteRule()),
		"ttl-after-finished-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbDelete).groups(batchGroup).resources("jobs"),
			eventsWriteRule()),
	}
}
