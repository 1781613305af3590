package auth

import (
	"reflect"
	"sort"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Metadata that marks the default policy objects, as upstream marks them.
const (
	// BootstrapLabel and BootstrapLabelValue mark every default role and
	// binding.
	BootstrapLabel      = "kubernetes.io/bootstrapping"
	BootstrapLabelValue = "rbac-defaults"
	// AutoupdateAnnotation (value "true") says the server may reconcile
	// the object back to its default.
	AutoupdateAnnotation = rbacv1.AutoUpdateAnnotationKey

	aggregateToAdmin = "rbac.authorization.k8s.io/aggregate-to-admin"
	aggregateToEdit  = "rbac.authorization.k8s.io/aggregate-to-edit"
	aggregateToView  = "rbac.authorization.k8s.io/aggregate-to-view"
)

// StudentUser is the user kubesim's own default binding gives read access.
const StudentUser = "student"

// API groups named in the default policy.
const (
	coreGroup           = ""
	appsGroup           = "apps"
	authenticationGroup = "authentication.k8s.io"
	authorizationGroup  = "authorization.k8s.io"
	autoscalingGroup    = "autoscaling"
	batchGroup          = "batch"
	certificatesGroup   = "certificates.k8s.io"
	coordinationGroup   = "coordination.k8s.io"
	discoveryGroup      = "discovery.k8s.io"
	eventsGroup         = "events.k8s.io"
	extensionsGroup     = "extensions"
	networkingGroup     = "networking.k8s.io"
	nodeGroup           = "node.k8s.io"
	policyGroup         = "policy"
	rbacGroup           = rbacv1.GroupName
	resourceGroup       = "resource.k8s.io"
	storageGroup        = "storage.k8s.io"
)

// Verb sets the default policy grants together.
var (
	readVerbs      = []string{VerbGet, VerbList, VerbWatch}
	writeVerbs     = []string{VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection}
	readWriteVerbs = []string{VerbGet, VerbList, VerbWatch, VerbCreate, VerbUpdate, VerbPatch, VerbDelete, VerbDeleteCollection}
	readUpdate     = []string{VerbGet, VerbList, VerbWatch, VerbUpdate, VerbPatch}
)

// ruleBuilder writes one PolicyRule compactly; rule sorts every list, so
// the stored rules read like upstream's.
type ruleBuilder struct{ r rbacv1.PolicyRule }

func allow(verbs ...string) *ruleBuilder {
	return &ruleBuilder{r: rbacv1.PolicyRule{Verbs: append([]string(nil), verbs...)}}
}

func (b *ruleBuilder) groups(g ...string) *ruleBuilder {
	b.r.APIGroups = append(b.r.APIGroups, g...)
	return b
}

func (b *ruleBuilder) resources(r ...string) *ruleBuilder {
	b.r.Resources = append(b.r.Resources, r...)
	return b
}

func (b *ruleBuilder) names(n ...string) *ruleBuilder {
	b.r.ResourceNames = append(b.r.ResourceNames, n...)
	return b
}

func (b *ruleBuilder) urls(u ...string) *ruleBuilder {
	b.r.NonResourceURLs = append(b.r.NonResourceURLs, u...)
	return b
}

func (b *ruleBuilder) rule() rbacv1.PolicyRule {
	for _, s := range [][]string{b.r.Verbs, b.r.APIGroups, b.r.Resources, b.r.ResourceNames, b.r.NonResourceURLs} {
		sort.Strings(s)
	}
	return b.r
}

func rules(bs ...*ruleBuilder) []rbacv1.PolicyRule {
	out := make([]rbacv1.PolicyRule, len(bs))
	for i, b := range bs {
		out[i] = b.rule()
	}
	return out
}

// eventsWriteRule lets a component record events.
func eventsWriteRule() *ruleBuilder {
	return allow(VerbCreate, VerbUpdate, VerbPatch).groups(coreGroup, eventsGroup).resources("events")
}

// viewRules are upstream's system:aggregate-to-view rules: read access to
// the ordinary namespaced objects, never to secrets, and no writes.
func viewRules() []rbacv1.PolicyRule {
	return rules(
		allow(readVerbs...).groups(coreGroup).resources("pods", "replicationcontrollers", "replicationcontrollers/scale",
			"serviceaccounts", "services", "services/status", "endpoints", "persistentvolumeclaims",
			"persistentvolumeclaims/status", "configmaps"),
		allow(readVerbs...).groups(coreGroup).resources("limitranges", "resourcequotas", "bindings", "pods/status",
			"resourcequotas/status", "namespaces/status", "replicationcontrollers/status", "pods/log"),
		// Reading namespaces through a RoleBinding means reading that one namespace.
		allow(readVerbs...).groups(coreGroup).resources("namespaces"),
		allow(readVerbs...).groups(coreGroup, eventsGroup).resources("events"),
		allow(readVerbs...).groups(discoveryGroup).resources("endpointslices"),
		allow(readVerbs...).groups(appsGroup).resources("controllerrevisions",
			"statefulsets", "statefulsets/status", "statefulsets/scale",
			"daemonsets", "daemonsets/status",
			"deployments", "deployments/status", "deployments/scale",
			"replicasets", "replicasets/status", "replicasets/scale"),
		allow(readVerbs...).groups(autoscalingGroup).resources("horizontalpodautoscalers", "horizontalpodautoscalers/status"),
		allow(readVerbs...).groups(batchGroup).resources("jobs", "cronjobs", "cronjobs/status", "jobs/status"),
		allow(readVerbs...).groups(extensionsGroup).resources("daemonsets", "daemonsets/status", "deployments",
			"deployments/scale", "deployments/status", "ingresses", "ingresses/status", "replicasets",
			"replicasets/scale", "replicasets/status", "replicationcontrollers/scale", "networkpolicies"),
		allow(readVerbs...).groups(policyGroup).resources("poddisruptionbudgets", "poddisruptionbudgets/status"),
		allow(readVerbs...).groups(networkingGroup).resources("networkpolicies", "ingresses", "ingresses/status"),
		allow(readVerbs...).groups(resourceGroup).resources("resourceclaims", "resourceclaims/status", "resourceclaimtemplates"),
	)
}

// editRules are upstream's system:aggregate-to-edit rules: writes to the
// ordinary namespaced objects (not their status, not RBAC), and reads of
// the escalating ones such as secrets.
func editRules() []rbacv1.PolicyRule {
	return rules(
		allow(readVerbs...).groups(coreGroup).resources("pods/attach", "pods/proxy", "pods/exec", "pods/portforward", "secrets", "services/proxy"),
		allow("impersonate").groups(coreGroup).resources("serviceaccounts"),
		allow(writeVerbs...).groups(coreGroup).resources("pods", "pods/attach", "pods/proxy", "pods/exec", "pods/portforward"),
		allow(VerbCreate).groups(coreGroup).resources("pods/eviction"),
		allow(writeVerbs...).groups(coreGroup).resources("replicationcontrollers", "replicationcontrollers/scale",
			"serviceaccounts", "services", "services/proxy", "persistentvolumeclaims", "configmaps", "secrets"),
		allow(VerbCreate).groups(coreGroup).resources("serviceaccounts/token"),
		allow(writeVerbs...).groups(coreGroup, eventsGroup).resources("events"),
		allow(writeVerbs...).groups(appsGroup).resources("statefulsets", "statefulsets/scale", "daemonsets",
			"deployments", "deployments/scale", "deployments/rollback", "replicasets", "replicasets/scale"),
		allow(writeVerbs...).groups(autoscalingGroup).resources("horizontalpodautoscalers"),
		allow(writeVerbs...).groups(batchGroup).resources("jobs", "cronjobs"),
		allow(writeVerbs...).groups(extensionsGroup).resources("daemonsets", "deployments", "deployments/scale",
			"deployments/rollback", "ingresses", "replicasets", "replicasets/scale", "replicationcontrollers/scale",
			"networkpolicies"),
		allow(writeVerbs...).groups(policyGroup).resources("poddisruptionbudgets"),
		allow(writeVerbs...).groups(networkingGroup).resources("networkpolicies", "ingresses"),
		allow(readWriteVerbs...).groups(coordinationGroup).resources("leases"),
		allow(writeVerbs...).groups(resourceGroup).resources("resourceclaims", "resourceclaimtemplates"),
	)
}

// adminRules are upstream's system:aggregate-to-admin rules: what admin
// adds to edit, chiefly managing Roles and RoleBindings.
func adminRules() []rbacv1.PolicyRule {
	return rules(
		allow(VerbCreate).groups(authorizationGroup).resources("localsubjectaccessreviews"),
		allow(readWriteVerbs...).groups(rbacGroup).resources("roles", "rolebindings"),
	)
}

// nodeRules are upstream's system:node rules (with v1.37's default
// feature gates): what a kubelet may do at most; the Node authorizer
// narrows several of them per node.
func nodeRules() []rbacv1.PolicyRule {
	return rules(
		allow(VerbCreate).groups(authenticationGroup).resources("tokenreviews"),
		allow(VerbCreate).groups(authorizationGroup).resources("subjectaccessreviews", "localsubjectaccessreviews"),
		allow(readVerbs...).groups(coreGroup).resources("services"),
		allow(VerbCreate, VerbGet, VerbList, VerbWatch).groups(coreGroup).resources("nodes"),
		allow(VerbUpdate, VerbPatch).groups(coreGroup).resources("nodes/status"),
		allow(VerbUpdate, VerbPatch).groups(coreGroup).resources("nodes"),
		eventsWriteRule(),
		allow(readVerbs...).groups(coreGroup).resources("pods"),
		allow(VerbCreate, VerbDelete).groups(coreGroup).resources("pods"),
		allow(VerbUpdate, VerbPatch).groups(coreGroup).resources("pods/status"),
		allow(VerbCreate).groups(coreGroup).resources("pods/eviction"),
		allow(readVerbs...).groups(coreGroup).resources("secrets", "configmaps"),
		allow(VerbGet).groups(coreGroup).resources("persistentvolumeclaims", "persistentvolumes"),
		allow(VerbGet).groups(coreGroup).resources("endpoints"),
		allow(VerbCreate, VerbGet, VerbList, VerbWatch).groups(certificatesGroup).resources("certificatesigningrequests"),
		allow(VerbGet, VerbCreate, VerbUpdate, VerbPatch, VerbDelete).groups(coordinationGroup).resources("leases"),
		allow(VerbGet).groups(storageGroup).resources("volumeattachments"),
		allow(VerbCreate).groups(coreGroup).resources("serviceaccounts/token"),
		allow(VerbGet, VerbUpdate, VerbPatch).groups(coreGroup).resources("persistentvolumeclaims/status"),
		allow(readVerbs...).groups(storageGroup).resources("csidrivers"),
		allow(VerbGet, VerbCreate, VerbUpdate, VerbPatch, VerbDelete).groups(storageGroup).resources("csinodes"),
		allow(readVerbs...).groups(nodeGroup).resources("runtimeclasses"),
		allow(VerbGet).groups(resourceGroup).resources("resourceclaims"),
		allow(VerbDeleteCollection).groups(resourceGroup).resources("resourceslices"),
		allow(readVerbs...).groups(certificatesGroup).resources("clustertrustbundles"),
		allow(VerbGet).groups(coreGroup).resources("serviceaccounts"),
		allow(VerbGet, VerbList, VerbWatch, VerbCreate).groups(certificatesGroup).resources("podcertificaterequests"),
	)
}

// schedulerRules are upstream's system:kube-scheduler rules (v1.37
// default feature gates).
func schedulerRules() []rbacv1.PolicyRule {
	return rules(
		eventsWriteRule(),
		// Leader election.
		allow(VerbCreate).groups(coordinationGroup).resources("leases"),
		allow(VerbGet, VerbUpdate, VerbList, VerbWatch).groups(coordinationGroup).resources("leases").names("kube-scheduler"),
		allow(readWriteVerbs...).groups(coordinationGroup).resources("leasecandidates"),
		// What it schedules, and onto what.
		allow(readVerbs...).groups(coreGroup).resources("nodes"),
		allow(VerbGet, VerbList, VerbWatch, VerbDelete).groups(coreGroup).resources("pods"),
		allow(VerbCreate).groups(coreGroup).resources("pods/binding", "bindings"),
		allow(VerbPatch, VerbUpdate).groups(coreGroup).resources("pods/status"),
		// Objects that select pods or that pods use.
		allow(readVerbs...).groups(coreGroup).resources("services", "replicationcontrollers"),
		allow(readVerbs...).groups(appsGroup, extensionsGroup).resources("replicasets"),
		allow(readVerbs...).groups(appsGroup).resources("statefulsets"),
		allow(readVerbs...).groups(policyGroup).resources("poddisruptionbudgets"),
		allow(readVerbs...).groups(coreGroup).resources("persistentvolumeclaims", "persistentvolumes"),
		allow(VerbCreate).groups(authenticationGroup).resources("tokenreviews"),
		allow(VerbCreate).groups(authorizationGroup).resources("subjectaccessreviews"),
		allow(readVerbs...).groups(storageGroup).resources("csinodes"),
		allow(VerbGet, VerbList, VerbWatch).groups(storageGroup).resources("volumeattachments"),
		allow(readVerbs...).groups(coreGroup).resources("namespaces"),
		allow(readVerbs...).groups(storageGroup).resources("csidrivers"),
		allow(readVerbs...).groups(storageGroup).resources("csistoragecapacities"),
		// Dynamic resource allocation.
		allow(readVerbs...).groups(resourceGroup).resources("deviceclasses"),
		allow(readUpdate...).groups(resourceGroup).resources("resourceclaims"),
		allow(readUpdate...).groups(resourceGroup).resources("resourceclaims/status"),
		allow(VerbUpdate).groups(coreGroup).resources("pods/finalizers"),
		allow(readVerbs...).groups(resourceGroup).resources("resourceslices"),
		allow(VerbCreate, VerbDelete).groups(resourceGroup).resources("resourceclaims"),
		allow(readVerbs...).groups(resourceGroup).resources("devicetaintrules"),
		allow(VerbUpdate, VerbPatch).groups(resourceGroup).resources("resourceclaims/binding"),
	)
}

// BootstrapPolicy returns the default ClusterRoles and ClusterRoleBindings
// to create at first boot, fresh objects on every call.
//
// The roles are upstream's, with their names, rules, the label
// kubernetes.io/bootstrapping=rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate=true: cluster-admin
// (everything), admin, edit and view with their aggregation rules and the
// three system:aggregate-to-* roles they aggregate, system:node,
// system:kube-scheduler, system:discovery, system:public-info-viewer,
// system:monitoring,
// system:basic-user, system:auth-delegator, system:kube-controller-manager
// and the controllers' system:controller:<name> roles
// (policy_controllers.go). Upstream
// creates admin, edit and view without rules, and
// kube-controller-manager's clusterrole-aggregation-controller fills them
// from the roles their aggregation rules select. kubesim runs that
// controller too, but the roles come filled in already, in the order it
// produces (by source role name, without duplicates), so that a cluster
// without the controller manager answers the same.
//
// The bindings are upstream's for those roles (cluster-admin to
// system:masters, system:kube-scheduler and system:kube-controller-manager
// to their users, each system:controller:<name> to the service account
// kube-system/<name>, system:node with no subjects, system:monitoring to
// its group, the discovery roles to system:authenticated, and
// system:public-info-viewer to system:unauthenticated too) plus kubesim's
// own kubesim:student-view, binding view to the user "student".
func BootstrapPolicy() (clusterRoles []*rbacv1.ClusterRole, clusterRoleBindings []*rbacv1.ClusterRoleBinding) {
	selector := func(label string) *rbacv1.AggregationRule {
		return &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{label: "true"}}}}
	}
	clusterRoles = []*rbacv1.ClusterRole{
		clusterRole("cluster-admin", nil, rules(
			allow(rbacv1.VerbAll).groups(rbacv1.APIGroupAll).resources(rbacv1.ResourceAll),
			allow(rbacv1.VerbAll).urls(rbacv1.NonResourceAll),
		)),
		clusterRole("system:discovery", nil, rules(
			allow(VerbGet).urls("/livez", "/readyz", "/healthz", "/version", "/version/",
				"/openapi", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"),
		)),
		clusterRole("system:basic-user", nil, rules(
			allow(VerbCreate).groups(authorizationGroup).resources("selfsubjectaccessreviews", "selfsubjectrulesreviews"),
			allow(VerbCreate).groups(authenticationGroup).resources("selfsubjectreviews"),
		)),
		clusterRole("system:public-info-viewer", nil, rules(
			allow(VerbGet).urls("/livez", "/readyz", "/healthz", "/version", "/version/"),
		)),
		// Read access to the monitoring endpoints (/metrics, the health
		// checks one by one), and the kubelets' metrics; /flagz and
		// /statusz are there as upstream's v1.37 has them (its
		// ComponentFlagz and ComponentStatusz gates are on).
		clusterRole("system:monitoring", nil, rules(
			allow(VerbGet).urls("/metrics", "/metrics/slis", "/livez", "/readyz", "/healthz",
				"/livez/*", "/readyz/*", "/healthz/*", "/flagz", "/statusz"),
			allow(VerbGet).groups("").resources("nodes/metrics"),
		)),
		// What a server that delegates authentication and authorization
		// to this one needs (an aggregated API server, a webhook); upstream
		// binds it to no one.
		clusterRole("system:auth-delegator", nil, rules(
			allow(VerbCreate).groups(authenticationGroup).resources("tokenreviews"),
			allow(VerbCreate).groups(authorizationGroup).resources("subjectaccessreviews"),
		)),
		withAggregation(clusterRole("admin", nil, nil), selector(aggregateToAdmin)),
		withAggregation(clusterRole("edit", map[string]string{aggregateToAdmin: "true"}, nil), selector(aggregateToEdit)),
		withAggregation(clusterRole("view", map[string]string{aggregateToEdit: "true"}, nil), selector(aggregateToView)),
		clusterRole("system:aggregate-to-admin", map[string]string{aggregateToAdmin: "true"}, adminRules()),
		clusterRole("system:aggregate-to-edit", map[string]string{aggregateToEdit: "true"}, editRules()),
		clusterRole("system:aggregate-to-view", map[string]string{aggregateToView: "true"}, viewRules()),
		clusterRole("system:node", nil, nodeRules()),
		clusterRole("system:kube-scheduler", nil, schedulerRules()),
		clusterRole("system:volume-scheduler", nil, volumeSchedulerRules()),
	}
	// view feeds edit, which feeds admin.
	for _, name := range []string{"view", "edit", "admin"} {
		aggregate(findRole(clusterRoles, name), clusterRoles)
	}

	clusterRoleBindings = []*rbacv1.ClusterRoleBinding{
		clusterRoleBinding("cluster-admin", "cluster-admin", true, groupSubject(GroupMasters)),
		clusterRoleBinding("system:monitoring", "system:monitoring", true, groupSubject(GroupMonitoring)),
		clusterRoleBinding("system:discovery", "system:discovery", true, groupSubject(GroupAuthenticated)),
		clusterRoleBinding("system:basic-user", "system:basic-user", true, groupSubject(GroupAuthenticated)),
		clusterRoleBinding("system:public-info-viewer", "system:public-info-viewer", true,
			groupSubject(GroupAuthenticated), groupSubject(GroupUnauthenticated)),
		clusterRoleBinding("system:kube-scheduler", "system:kube-scheduler", true, userSubject(SchedulerUser)),
		clusterRoleBinding("system:volume-scheduler", "system:volume-scheduler", true, userSubject(SchedulerUser)),
		// Upstream keeps this binding without subjects: kubelets get their
		// permissions from the Node authorizer instead.
		clusterRoleBinding("system:node", "system:node", true),
		clusterRoleBinding("kubesim:student-view", "view", false, userSubject(StudentUser)),
	}
	controllerRoles, controllerBindings := controllerPolicy()
	return append(clusterRoles, controllerRoles...), append(clusterRoleBindings, controllerBindings...)
}

// clusterRole builds a default ClusterRole with the bootstrap label and
// annotation, plus extraLabels.
func clusterRole(name string, extraLabels map[string]string, rules []rbacv1.PolicyRule) *rbacv1.ClusterRole {
	l := map[string]string{BootstrapLabel: BootstrapLabelValue}
	for k, v := range extraLabels {
		l[k] = v
	}
	return &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{
			Name:        name,
			Labels:      l,
			Annotations: map[string]string{AutoupdateAnnotation: "true"},
		},
		Rules: rules,
	}
}

func withAggregation(r *rbacv1.ClusterRole, a *rbacv1.AggregationRule) *rbacv1.ClusterRole {
	r.AggregationRule = a
	return r
}

// clusterRoleBinding builds a binding to a ClusterRole; upstream ones carry
// the bootstrap label and annotation.
func clusterRoleBinding(name, role string, upstream bool, subjects ...rbacv1.Subject) *rbacv1.ClusterRoleBinding {
	b := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role},
		Subjects:   subjects,
	}
	if upstream {
		b.Labels = map[string]string{BootstrapLabel: BootstrapLabelValue}
		b.Annotations = map[string]string{AutoupdateAnnotation: "true"}
	}
	return b
}

func groupSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.GroupKind, Name: name}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: name}
}

func findRole(roles []*rbacv1.ClusterRole, name string) *rbacv1.ClusterRole {
	for _, r := range roles {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// aggregate fills target's rules from the roles its aggregation rule
// selects, as kube-controller-manager's aggregation controller does: for
// each selector, the matching roles sorted by name (target itself
// excepted), each rule appended unless an equal one is already there.
func aggregate(target *rbacv1.ClusterRole, all []*rbacv1.ClusterRole) {
	if target == nil || target.AggregationRule == nil {
		return
	}
	var out []rbacv1.PolicyRule
	for i := range target.AggregationRule.ClusterRoleSelectors {
		sel, err := metav1.LabelSelectorAsSelector(&target.AggregationRule.ClusterRoleSelectors[i])
		if err != nil {
			continue // static selectors above always parse
		}
		var matched []*rbacv1.ClusterRole
		for _, r := range all {
			if r.Name != target.Name && sel.Matches(labels.Set(r.Labels)) {
				matched = append(matched, r)
			}
		}
		sort.Slice(matched, func(i, j int) bool { return matched[i].Name < matched[j].Name })
		for _, r := range matched {
			for _, rule := range r.Rules {
				if !hasRule(out, rule) {
					out = append(out, *rule.DeepCopy())
				}
			}
		}
	}
	target.Rules = out
}

func hasRule(rules []rbacv1.PolicyRule, r rbacv1.PolicyRule) bool {
	for _, x := range rules {
		if reflect.DeepEqual(x, r) {
			return true
		}
	}
	return false
}

// AggregateClusterRoles fills the rules of every role of all that has an
// aggregation rule from the roles its selectors match, as
// kube-controller-manager's clusterrole-aggregation controller does (rules
// of the selected roles in name order, without duplicates), until nothing
// changes (view feeds edit, which feeds admin), and returns the roles whose
// rules changed. The assembler calls this when it adds a role meant to be
// aggregated, so that the roles are right before (or without) the
// controller manager's clusterrole-aggregation-controller, which writes
// the same rules.
func AggregateClusterRoles(all []*rbacv1.ClusterRole) []*rbacv1.ClusterRole {
	changed := map[string]*rbacv1.ClusterRole{}
	for range all {
		progress := false
		for _, r := range all {
			before := r.Rules
			aggregate(r, all)
			if r.AggregationRule != nil && !reflect.DeepEqual(before, r.Rules) {
				changed[r.Name], progress = r, true
			}
		}
		if !progress {
			break
		}
	}
	out := make([]*rbacv1.ClusterRole, 0, len(changed))
	for _, r := range changed {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
