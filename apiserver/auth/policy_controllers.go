package auth

import (
	"maps"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
)

// ControllerManagerUser is the user name kube-controller-manager
// authenticates as.
const ControllerManagerUser = "system:kube-controller-manager"

// ControllerRolePrefix starts the name of each controller's ClusterRole
// (system:controller:deployment-controller); the role is bound to the
// service account kube-system/<controller>, the identity
// kube-controller-manager gives each controller when it runs with
// --use-service-account-credentials (as kubeadm sets it).
const ControllerRolePrefix = "system:controller:"

// ControllerServiceAccountNamespace holds the controllers' service
// accounts.
const ControllerServiceAccountNamespace = "kube-system"

// controllerManagerRules are upstream's system:kube-controller-manager
// rules: what the controller manager needs itself to start its shared
// informers (list and watch of everything), elect a leader and make the
// controllers' service accounts and their tokens.
func controllerManagerRules() []rbacv1.PolicyRule {
	return rules(
		eventsWriteRule(),
		allow(VerbCreate).groups(coordinationGroup).resources("leases"),
		allow(VerbGet, VerbUpdate).groups(coordinationGroup).resources("leases").names("kube-controller-manager"),
		allow(VerbCreate).groups(coreGroup).resources("secrets", "serviceaccounts"),
		allow(VerbDelete).groups(coreGroup).resources("secrets"),
		allow(VerbGet).groups(coreGroup).resources("namespaces", "secrets", "serviceaccounts", "configmaps"),
		allow(VerbUpdate).groups(coreGroup).resources("secrets", "serviceaccounts"),
		allow(VerbCreate).groups(authenticationGroup).resources("tokenreviews"),
		allow(VerbCreate).groups(authorizationGroup).resources("subjectaccessreviews"),
		allow(VerbList, VerbWatch).groups(rbacv1.APIGroupAll).resources(rbacv1.ResourceAll),
		allow(VerbCreate).groups(coreGroup).resources("serviceaccounts/token"),
	)
}

// controllerRoles are upstream's system:controller:<name> roles of the
// controllers kubesim's controller manager runs or will run, with their
// rules as v1.37 defines them (default feature gates). Upstream defines
// more (volume, certificate, bootstrap-token controllers...); kubesim
// runs none of them.
func controllerRoles() map[string][]rbacv1.PolicyRule {
	crud := []string{VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbDelete}
	roles := map[string][]rbacv1.PolicyRule{
		"clusterrole-aggregation-controller": rules(
			allow("escalate", VerbGet, VerbList, VerbWatch, VerbUpdate, VerbPatch).groups(rbacGroup).resources("clusterroles")),
		"deployment-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(extensionsGroup, appsGroup).resources("deployments"),
			allow(VerbUpdate).groups(extensionsGroup, appsGroup).resources("deployments/status"),
			allow(VerbUpdate).groups(extensionsGroup, appsGroup).resources("deployments/finalizers"),
			allow(VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbPatch, VerbDelete).groups(appsGroup, extensionsGroup).resources("replicasets"),
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"endpoint-controller": rules(
			allow(readVerbs...).groups(coreGroup).resources("services", "pods"),
			allow(crud...).groups(coreGroup).resources("endpoints"),
			allow(VerbCreate).groups(coreGroup).resources("endpoints/restricted"),
			eventsWriteRule()),
		"endpointslice-controller": rules(
			allow(readVerbs...).groups(coreGroup).resources("services", "pods", "nodes"),
			allow(VerbUpdate).groups(coreGroup).resources("services/finalizers"),
			allow(crud...).groups(discoveryGroup).resources("endpointslices"),
			eventsWriteRule()),
		"endpointslicemirroring-controller": rules(
			allow(readVerbs...).groups(coreGroup).resources("services", "endpoints"),
			allow(VerbUpdate).groups(coreGroup).resources("services/finalizers"),
			allow(VerbUpdate).groups(coreGroup).resources("endpoints/finalizers"),
			allow(crud...).groups(discoveryGroup).resources("endpointslices"),
			eventsWriteRule()),
		"generic-garbage-collector": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbPatch, VerbUpdate, VerbDelete).groups(rbacv1.APIGroupAll).resources(rbacv1.ResourceAll),
			eventsWriteRule()),
		"namespace-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbDelete).groups(coreGroup).resources("namespaces"),
			allow(VerbUpdate).groups(coreGroup).resources("namespaces/finalize", "namespaces/status"),
			allow(VerbGet, VerbList, VerbWatch, VerbDelete, VerbDeleteCollection).groups(rbacv1.APIGroupAll).resources(rbacv1.ResourceAll)),
		"node-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate, VerbDelete, VerbPatch).groups(coreGroup).resources("nodes"),
			allow(VerbPatch, VerbUpdate).groups(coreGroup).resources("nodes/status"),
			allow(VerbPatch, VerbUpdate).groups(coreGroup).resources("pods/status"),
			allow(VerbList, VerbWatch, VerbGet, VerbDelete).groups(coreGroup).resources("pods"),
			allow(readVerbs...).groups(coordinationGroup).resources("leases"),
			eventsWriteRule()),
		"pod-garbage-collector": rules(
			allow(VerbList, VerbWatch, VerbDelete).groups(coreGroup).resources("pods"),
			allow(readVerbs...).groups(coreGroup).resources("nodes"),
			allow(VerbPatch).groups(coreGroup).resources("pods/status")),
		"replicaset-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbUpdate).groups(appsGroup, extensionsGroup).resources("replicasets"),
			allow(VerbUpdate).groups(appsGroup, extensionsGroup).resources("replicasets/status"),
			allow(VerbUpdate).groups(appsGroup, extensionsGroup).resources("replicasets/finalizers"),
			allow(VerbList, VerbWatch, VerbPatch, VerbCreate, VerbDelete).groups(coreGroup).resources("pods"),
			eventsWriteRule()),
		"resourcequota-controller": rules(
			// It counts quota on anything, so it may list and watch everything.
			allow(VerbList, VerbWatch).groups(rbacv1.APIGroupAll).resources(rbacv1.ResourceAll),
			allow(VerbUpdate).groups(coreGroup).resources("resourcequotas/status"),
			eventsWriteRule()),
		"certificate-controller": rules(
			allow(VerbGet, VerbList, VerbWatch, VerbDelete).groups(certificatesGroup).resources("certificatesigningrequests"),
			allow(VerbUpdate).groups(certificatesGroup).resources("certificatesigningrequests/status", "certificatesigningrequests/approval"),
			allow("approve").groups(certificatesGroup).resources("signers").names("kubernetes.io/kube-apiserver-client-kubelet"),
			allow("sign").groups(certificatesGroup).resources("signers").names("kubernetes.io/legacy-unknown",
				"kubernetes.io/kube-apiserver-client", "kubernetes.io/kube-apiserver-client-kubelet", "kubernetes.io/kubelet-serving"),
			allow(VerbCreate).groups(authorizationGroup).resources("subjectaccessreviews"),
			eventsWriteRule()),
		"root-ca-cert-publisher": rules(
			allow(VerbCreate, VerbUpdate).groups(coreGroup).resources("configmaps"),
			eventsWriteRule()),
		"service-account-controller": rules(
			allow(VerbCreate).groups(coreGroup).resources("serviceaccounts"),
			eventsWriteRule()),
		"ttl-controller": rules(
			allow(VerbUpdate, VerbPatch, VerbList, VerbWatch).groups(coreGroup).resources("nodes"),
			eventsWriteRule()),
	}
	maps.Copy(roles, workloadControllerRoles())
	maps.Copy(roles, storageControllerRoles())
	return roles
}

// controllerPolicy returns system:kube-controller-manager and its binding
// to ControllerManagerUser, and each controller's role bound to its
// service account, as upstream's bootstrap policy does.
func controllerPolicy() ([]*rbacv1.ClusterRole, []*rbacv1.ClusterRoleBinding) {
	roles := []*rbacv1.ClusterRole{clusterRole(ControllerManagerUser, nil, controllerManagerRules())}
	bindings := []*rbacv1.ClusterRoleBinding{
		clusterRoleBinding(ControllerManagerUser, ControllerManagerUser, true, userSubject(ControllerManagerUser)),
	}
	byName := controllerRoles()
	for _, name := range sortedRoleNames(byName) {
		role := ControllerRolePrefix + name
		roles = append(roles, clusterRole(role, nil, byName[name]))
		bindings = append(bindings, clusterRoleBinding(role, role, true, rbacv1.Subject{
			Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ControllerServiceAccountNamespace,
		}))
	}
	return roles, bindings
}

func sortedRoleNames(m map[string][]rbacv1.PolicyRule) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
