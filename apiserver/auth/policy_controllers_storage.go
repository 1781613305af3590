package auth

import rbacv1 "k8s.io/api/rbac/v1"

// LocalPathProvisionerName is the service account (in kube-system) of
// kubesim's stand-in for kind's local-path-provisioner, which kubesim's
// controller manager runs.
const LocalPathProvisionerName = "kubesim-local-path-provisioner"

// storageControllerRoles are upstream's system:controller:<name> roles
// (controller_policy.go, v1.37) of the volume controllers kubesim's
// controller manager runs as upstream's own code, and the role of
// kubesim's provisioner: the rules of kind's local-path-provisioner-role
// (its node image's default storage manifest), which kind binds to
// local-path-storage/local-path-provisioner-service-account instead.
func storageControllerRoles() map[string][]rbacv1.PolicyRule {
	return map[string][]rbacv1.PolicyRule{
		"persistent-volume-binder": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate, VerbCreate, VerbDelete).groups(coreGroup).resources("persistentvolumes"),
			allow(VerbUpdate).groups(coreGroup).resources("persistentvolumes/status"),
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(coreGroup).resources("persistentvolumeclaims"),
			allow(VerbUpdate).groups(coreGroup).resources("persistentvolumeclaims/status"),
			allow(VerbList, VerbWatch, VerbGet, VerbCreate, VerbDelete).groups(coreGroup).resources("pods"),
			allow(VerbGet, VerbList, VerbWatch).groups(storageGroup).resources("storageclasses"),
			allow(VerbList, VerbWatch).groups(coreGroup).resources("nodes"),
			eventsWriteRule(),
			allow(VerbWatch).groups(coreGroup).resources("events")),
		"pvc-protection-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(coreGroup).resources("persistentvolumeclaims"),
			allow(VerbUpdate).groups(coreGroup).resources("persistentvolumeclaims/status"),
			allow(VerbList, VerbWatch, VerbGet).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"pv-protection-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(coreGroup).resources("persistentvolumes"),
			eventsWriteRule()),
		LocalPathProvisionerName: rules(
			allow(VerbGet, VerbList, VerbWatch).groups(coreGroup).resources("nodes", "persistentvolumeclaims", "configmaps"),
			allow(rbacv1.VerbAll).groups(coreGroup).resources("endpoints", "persistentvolumes", "pods"),
			allow(VerbCreate, VerbPatch).groups(coreGroup).resources("events"),
			allow(VerbGet, VerbList, VerbWatch).groups(storageGroup).resources("storageclasses")),
	}
}

// volumeSchedulerRules are upstream's system:volume-scheduler rules,
// bound to system:kube-scheduler: what the scheduler's VolumeBinding
// plugin reads and writes (a claim's selected-node annotation).
func volumeSchedulerRules() []rbacv1.PolicyRule {
	readUpdate := []string{VerbGet, VerbList, VerbWatch, VerbUpdate, VerbPatch}
	return rules(
		allow(readUpdate...).groups(coreGroup).resources("persistentvolumes"),
		allow(VerbGet, VerbList, VerbWatch).groups(storageGroup).resources("storageclasses"),
		allow(readUpdate...).groups(coreGroup).resources("persistentvolumeclaims"),
	)
}
