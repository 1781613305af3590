package registry

// Pod validation: the rules kube-apiserver v1.37 applies to a pod on
// create, on update and on a pods/status update, with its field paths,
// error types and detail texts, so that kubectl shows the same
// "Pod "x" is invalid: [...]" answer. Object metadata is not checked here:
// Store validates it for every resource.
//
// The rules follow the defaults of a v1.37 server (feature gates at their
// default values): container restartPolicy and restartPolicyRules are
// allowed, environment variable names use the relaxed rule, the Lt/Gt
// toleration operators are not allowed unless the stored pod already uses
// them.
//
// Not reproduced: the checks of volumes and volume mounts, probes and
// lifecycle hooks (beyond their being forbidden on plain init containers),
// security contexts, affinity, topology spread constraints, host aliases,
// envFrom and env valueFrom, resize policies, pod-level resources, the
// hostNetwork hostPort rule (it relies on a default DefaultPod does not
// set), pod annotations, and container status users.

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// Detail texts shared by several rules (kube-apiserver's wording).
const (
	notTerminatedDetail   = "may not be transitioned to non-terminated state"
	initNotAlwaysDetail   = "may not be set for init containers without restartPolicy=Always"
	imageWhitespaceDetail = "must not have leading or trailing whitespace"
	nonNegativeIntDetail  = "must be a non-negative integer"
	notIntegerDetail      = "must be an integer"
)

// updatablePodSpecFields is the list a rejected pod update quotes.
var updatablePodSpecFields = []string{
	"`spec.containers[*].image`",
	"`spec.initContainers[*].image`",
	"`spec.activeDeadlineSeconds`",
	"`spec.tolerations` (only additions to existing tolerations)",
	"`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)",
}

// podRules are the switches kube-apiserver derives from its feature gates
// and from the stored pod.
type podRules struct {
	// comparisonOperators allows the Lt and Gt toleration operators: off
	// by default, kept on for a pod that already uses them.
	comparisonOperators bool
}

func podRulesFor(old *corev1.PodSpec) podRules {
	var r podRules
	if old != nil {
		for _, t := range old.Tolerations {
			if t.Operator == corev1.TolerationOpLt || t.Operator == corev1.TolerationOpGt {
				r.comparisonOperators = true
			}
		}
	}
	return r
}

// validatePodObject, validatePodUpdateObject and validatePodStatusObject
// adapt the pod rules to Strategy's signatures.
func validatePodObject(obj runtime.Object) field.ErrorList {
	return ValidatePod(obj.(*corev1.Pod))
}

func validatePodUpdateObject(obj, old runtime.Object) field.ErrorList {
	return ValidatePodUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

func validatePodStatusObject(obj, old runtime.Object) field.ErrorList {
	return ValidatePodStatusUpdate(obj.(*corev1.Pod), old.(*corev1.Pod))
}

// ValidatePod checks a pod about to be created: its spec, the pod-only
// container rules, and what may not be set at creation (ephemeral
// containers; a node together with scheduling gates). p must already carry
// the API defaults (DefaultPod). Safe for concurrent use; p is not changed.
func ValidatePod(p *corev1.Pod) field.ErrorList {
	specPath := field.NewPath("spec")
	errs := validatePodSpecForPod(p, podRulesFor(nil))
	if len(p.Spec.EphemeralContainers) > 0 {
		errs = append(errs, field.Forbidden(specPath.Child("ephemeralContainers"), "cannot be set on create"))
	}
	if p.Spec.NodeName != "" && len(p.Spec.SchedulingGates) != 0 {
		errs = append(errs, field.Forbidden(specPath.Child("nodeName"), "cannot be set until all schedulingGates have been cleared"))
	}
	return errs
}

// validatePodSpecForPod is the part shared by create and update: the spec
// rules plus the rules that hold for pods but not for pod templates.
func validatePodSpecForPod(p *corev1.Pod, rules podRules) field.ErrorList {
	specPath := field.NewPath("spec")
	errs := validatePodSpec(&p.Spec, specPath, rules)
	if p.Spec.TerminationGracePeriodSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*p.Spec.TerminationGracePeriodSeconds, specPath.Child("terminationGracePeriodSeconds"))...)
	}
	errs = append(errs, validateImagesTrimmed(p.Spec.Containers, specPath.Child("containers"))...)
	errs = append(errs, validateImagesTrimmed(p.Spec.InitContainers, specPath.Child("initContainers"))...)
	return errs
}

func validateImagesTrimmed(cs []corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		if len(c.Image) != len(strings.TrimSpace(c.Image)) {
			errs = append(errs, field.Invalid(path.Index(i).Child("image"), c.Image, imageWhitespaceDetail))
		}
	}
	return errs
}

// validatePodSpec checks a pod spec in kube-apiserver's order.
func validatePodSpec(spec *corev1.PodSpec, path *field.Path, rules podRules) field.ErrorList {
	var errs field.ErrorList
	if spec.TerminationGracePeriodSeconds == nil {
		errs = append(errs, field.Required(path.Child("terminationGracePeriodSeconds"), ""))
	}
	errs = append(errs, validateContainers(spec.Containers, path.Child("containers"))...)
	errs = append(errs, validateInitContainers(spec.InitContainers, spec.Containers, path.Child("initContainers"))...)
	errs = append(errs, validateRestartPolicy(spec.RestartPolicy, path.Child("restartPolicy"))...)
	errs = append(errs, validateDNSPolicy(spec.DNSPolicy, path.Child("dnsPolicy"))...)
	errs = append(errs, metav1validation.ValidateLabels(spec.NodeSelector, path.Child("nodeSelector"))...)
	errs = append(errs, validateDNSNone(spec, path.Child("dnsConfig"))...)
	for i, g := range spec.ReadinessGates {
		errs = append(errs, qualifiedName(string(g.ConditionType), path.Child("readinessGates").Index(i).Child("conditionType"))...)
	}
	errs = append(errs, validateSchedulingGates(spec.SchedulingGates, path.Child("schedulingGates"))...)
	if spec.ServiceAccountName != "" {
		for _, msg := range apivalidation.ValidateServiceAccountName(spec.ServiceAccountName, false) {
			errs = append(errs, field.Invalid(path.Child("serviceAccountName"), spec.ServiceAccountName, msg))
		}
	}
	if spec.DeprecatedServiceAccount != spec.ServiceAccountName {
		errs = append(errs, field.Invalid(path.Child("deprecatedServiceAccount"), spec.DeprecatedServiceAccount,
			fmt.Sprintf("must be the same as serviceAccountName: %q", spec.ServiceAccountName)))
	}
	if spec.NodeName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.NodeName, false) {
			errs = append(errs, field.Invalid(path.Child("nodeName"), spec.NodeName, msg))
		}
	}
	if spec.ActiveDeadlineSeconds != nil {
		if v := *spec.ActiveDeadlineSeconds; v < 1 || v > math.MaxInt32 {
			errs = append(errs, field.Invalid(path.Child("activeDeadlineSeconds"), v, validation.InclusiveRangeError(1, math.MaxInt32)))
		}
	}
	if spec.Hostname != "" {
		errs = append(errs, dns1123Label(spec.Hostname, path.Child("hostname"))...)
	}
	if spec.Subdomain != "" {
		errs = append(errs, dns1123Label(spec.Subdomain, path.Child("subdomain"))...)
	}
	if len(spec.Tolerations) > 0 {
		errs = append(errs, validateTolerations(spec.Tolerations, path.Child("tolerations"), rules)...)
	}
	if spec.PriorityClassName != "" {
		for _, msg := range apivalidation.NameIsDNSSubdomain(spec.PriorityClassName, false) {
			errs = append(errs, field.Invalid(path.Child("priorityClassName"), spec.PriorityClassName, msg))
		}
	}
	if spec.PreemptionPolicy != nil {
		switch p := *spec.PreemptionPolicy; p {
		case corev1.PreemptLowerPriority, corev1.PreemptNever:
		case "":
			errs = append(errs, field.Required(path.Child("preemptionPolicy"), ""))
		default:
			errs = append(errs, field.NotSupported(path.Child("preemptionPolicy"), p,
				[]corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
		}
	}
	return errs
}

func dns1123Label(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

func qualifiedName(value string, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(value) {
		errs = append(errs, field.Invalid(path, value, msg))
	}
	return errs
}

// validateContainers checks spec.containers: at least one, each valid, names
// unique among them, host ports not shared.
func validateContainers(cs []corev1.Container, path *field.Path) field.ErrorList {
	if len(cs) == 0 {
		return field.ErrorList{field.Required(path, "")}
	}
	var errs field.ErrorList
	seen := sets.New[string]()
	for i := range cs {
		c := &cs[i]
		idx := path.Index(i)
		errs = append(errs, validateContainerCommon(c, idx)...)
		if seen.Has(c.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		} else {
			seen.Insert(c.Name)
		}
		errs = append(errs, validateContainerRestartPolicy(c.RestartPolicy, c.RestartPolicyRules, idx)...)
	}
	return append(errs, hostPortConflicts(cs, path)...)
}

// validateInitContainers checks spec.initContainers; a name may not repeat
// one of spec.containers either. Init containers that are not sidecars
// (restartPolicy Always) may have no probes or lifecycle hooks.
func validateInitContainers(cs, regular []corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for _, c := range regular {
		seen.Insert(c.Name)
	}
	for i := range cs {
		c := &cs[i]
		idx := path.Index(i)
		errs = append(errs, validateContainerCommon(c, idx)...)
		if c.RestartPolicy == nil {
			if len(c.RestartPolicyRules) > 0 {
				errs = append(errs, field.Required(idx.Child("restartPolicy"), "must specify restartPolicy when restart rules are used"))
			}
		} else {
			errs = append(errs, validateContainerRestartPolicy(c.RestartPolicy, c.RestartPolicyRules, idx)...)
		}
		if seen.Has(c.Name) {
			errs = append(errs, field.Duplicate(idx.Child("name"), c.Name))
		} else if c.Name != "" {
			seen.Insert(c.Name)
		}
		// Init containers run one at a time, so only ports within one clash.
		errs = append(errs, hostPortConflicts([]corev1.Container{*c}, path)...)
		if c.RestartPolicy == nil || *c.RestartPolicy != corev1.ContainerRestartPolicyAlways {
			if c.Lifecycle != nil {
				errs = append(errs, field.Forbidden(idx.Child("lifecycle"), initNotAlwaysDetail))
			}
			if c.LivenessProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("livenessProbe"), initNotAlwaysDetail))
			}
			if c.ReadinessProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("readinessProbe"), initNotAlwaysDetail))
			}
			if c.StartupProbe != nil {
				errs = append(errs, field.Forbidden(idx.Child("startupProbe"), initNotAlwaysDetail))
			}
		}
	}
	return errs
}

// validateContainerCommon holds the rules every kind of container obeys.
func validateContainerCommon(c *corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c.Name == "" {
		errs = append(errs, field.Required(path.Child("name"), ""))
	} else {
		errs = append(errs, dns1123Label(c.Name, path.Child("name"))...)
	}
	if c.Image == "" {
		errs = append(errs, field.Required(path.Child("image"), ""))
	}
	switch c.TerminationMessagePolicy {
	case corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError:
	case "":
		errs = append(errs, field.Required(path.Child("terminationMessagePolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("terminationMessagePolicy"), c.TerminationMessagePolicy,
			[]corev1.TerminationMessagePolicy{corev1.TerminationMessageReadFile, corev1.TerminationMessageFallbackToLogsOnError}))
	}
	errs = append(errs, validateContainerPorts(c.Ports, path.Child("ports"))...)
	errs = append(errs, validateEnv(c.Env, path.Child("env"))...)
	switch c.ImagePullPolicy {
	case corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever:
	case "":
		errs = append(errs, field.Required(path.Child("imagePullPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(path.Child("imagePullPolicy"), c.ImagePullPolicy,
			[]corev1.PullPolicy{corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever}))
	}
	errs = append(errs, validateResources(&c.Resources, path.Child("resources"))...)
	return errs
}

// validateContainerRestartPolicy checks a container's restartPolicy and
// restartPolicyRules.
func validateContainerRestartPolicy(policy *corev1.ContainerRestartPolicy, rules []corev1.ContainerRestartRule, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	policyPath := path.Child("restartPolicy")
	switch {
	case policy == nil && len(rules) == 0:
		return nil
	case policy == nil:
		errs = append(errs, field.Required(policyPath, "must specify restartPolicy when restart rules are used"))
	default:
		switch *policy {
		case corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure:
		default:
			errs = append(errs, field.NotSupported(policyPath, *policy, []corev1.ContainerRestartPolicy{
				corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicyNever, corev1.ContainerRestartPolicyOnFailure}))
		}
	}
	rulesPath := path.Child("restartPolicyRules")
	if len(rules) > 20 {
		errs = append(errs, field.TooMany(rulesPath, len(rules), 20))
	}
	for i, r := range rules {
		rp := rulesPath.Index(i)
		if r.Action != corev1.ContainerRestartRuleActionRestart && r.Action != corev1.ContainerRestartRuleActionRestartAllContainers {
			errs = append(errs, field.NotSupported(rp.Child("action"), r.Action, []corev1.ContainerRestartRuleAction{
				corev1.ContainerRestartRuleActionRestart, corev1.ContainerRestartRuleActionRestartAllContainers}))
		}
		if r.ExitCodes == nil {
			errs = append(errs, field.Required(rp.Child("exitCodes"), "must be specified"))
			continue
		}
		op := r.ExitCodes.Operator
		if op != corev1.ContainerRestartRuleOnExitCodesOpIn && op != corev1.ContainerRestartRuleOnExitCodesOpNotIn {
			errs = append(errs, field.NotSupported(rp.Child("exitCodes", "operator"), op, []corev1.ContainerRestartRuleOnExitCodesOperator{
				corev1.ContainerRestartRuleOnExitCodesOpIn, corev1.ContainerRestartRuleOnExitCodesOpNotIn}))
		}
		if len(r.ExitCodes.Values) > 255 {
			errs = append(errs, field.TooMany(rp.Child("exitCodes", "values"), len(r.ExitCodes.Values), 255))
		}
	}
	return errs
}

// validateContainerPorts checks names (IANA service names, unique),
// containerPort 1-65535, hostPort 0-65535 and the protocol.
func validateContainerPorts(ports []corev1.ContainerPort, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	names := sets.New[string]()
	for i, p := range ports {
		idx := path.Index(i)
		if p.Name != "" {
			if msgs := validation.IsValidPortName(p.Name); len(msgs) != 0 {
				for _, msg := range msgs {
					errs = append(errs, field.Invalid(idx.Child("name"), p.Name, msg))
				}
			} else if names.Has(p.Name) {
				errs = append(errs, field.Duplicate(idx.Child("name"), p.Name))
			} else {
				names.Insert(p.Name)
			}
		}
		if p.ContainerPort == 0 {
			errs = append(errs, field.Required(idx.Child("containerPort"), ""))
		} else {
			for _, msg := range validation.IsValidPortNum(int(p.ContainerPort)) {
				errs = append(errs, field.Invalid(idx.Child("containerPort"), p.ContainerPort, msg))
			}
		}
		if p.HostPort != 0 {
			for _, msg := range validation.IsValidPortNum(int(p.HostPort)) {
				errs = append(errs, field.Invalid(idx.Child("hostPort"), p.HostPort, msg))
			}
		}
		switch p.Protocol {
		case corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP:
		case "":
			errs = append(errs, field.Required(idx.Child("protocol"), ""))
		default:
			errs = append(errs, field.NotSupported(idx.Child("protocol"), p.Protocol,
				[]corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}))
		}
	}
	return errs
}

// hostPortConflicts reports a hostPort used twice (same protocol and
// hostIP) among cs.
func hostPortConflicts(cs []corev1.Container, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	used := sets.New[string]()
	for ci, c := range cs {
		for pi, p := range c.Ports {
			if p.HostPort == 0 {
				continue
			}
			key := fmt.Sprintf("%s/%s/%d", p.Protocol, p.HostIP, p.HostPort)
			if used.Has(key) {
				errs = append(errs, field.Duplicate(path.Index(ci).Child("ports").Index(pi).Child("hostPort"), key))
			} else {
				used.Insert(key)
			}
		}
	}
	return errs
}

// validateEnv checks that every variable has a name made of printable
// ASCII characters other than '='.
func validateEnv(vars []corev1.EnvVar, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, v := range vars {
		namePath := path.Index(i).Child("name")
		if v.Name == "" {
			errs = append(errs, field.Required(namePath, ""))
			continue
		}
		for _, msg := range validation.IsRelaxedEnvVarName(v.Name) {
			errs = append(errs, field.Invalid(namePath, v.Name, msg))
		}
	}
	return errs
}

// Resource names, as kube-apiserver classifies them.
const (
	hugePagesPrefix         = "hugepages-"
	quotaHugePagesPrefix    = "requests.hugepages-"
	requestsPrefix          = "requests."
	defaultNamespacePrefix  = "kubernetes.io/"
	standardForContainerMsg = "must be a standard resource for containers"
)

var (
	standardResourceNames = sets.New[corev1.ResourceName](
		corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage,
		corev1.ResourceRequestsCPU, corev1.ResourceRequestsMemory, corev1.ResourceRequestsEphemeralStorage,
		corev1.ResourceLimitsCPU, corev1.ResourceLimitsMemory, corev1.ResourceLimitsEphemeralStorage,
		corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
		corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
		corev1.ResourceStorage, corev1.ResourceRequestsStorage,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
	)
	containerResourceNames = sets.New[corev1.ResourceName](corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage)
	countedResourceNames   = sets.New[corev1.ResourceName](
		corev1.ResourcePods, corev1.ResourceQuotas, corev1.ResourceServices, corev1.ResourceReplicationControllers,
		corev1.ResourceSecrets, corev1.ResourceConfigMaps, corev1.ResourcePersistentVolumeClaims,
		corev1.ResourceServicesNodePorts, corev1.ResourceServicesLoadBalancers,
	)
)

func isHugePages(n corev1.ResourceName) bool { return strings.HasPrefix(string(n), hugePagesPrefix) }

// isNativeResource: unprefixed names and names under kubernetes.io/.
func isNativeResource(n corev1.ResourceName) bool {
	return !strings.Contains(string(n), "/") || strings.Contains(string(n), defaultNamespacePrefix)
}

// isExtendedResource: a name outside kubernetes.io that still makes a valid
// quota name ("requests.<name>").
func isExtendedResource(n corev1.ResourceName) bool {
	if isNativeResource(n) || strings.HasPrefix(string(n), requestsPrefix) {
		return false
	}
	return len(validation.IsQualifiedName(requestsPrefix+string(n))) == 0
}

// overcommitAllowed: requests may be below limits only for native,
// non-hugepage resources.
func overcommitAllowed(n corev1.ResourceName) bool { return isNativeResource(n) && !isHugePages(n) }

func isStandardResource(n corev1.ResourceName) bool {
	return standardResourceNames.Has(n) || isHugePages(n) || strings.HasPrefix(string(n), quotaHugePagesPrefix)
}

// validateContainerResourceName accepts cpu, memory, ephemeral-storage,
// hugepages-<size> and extended resources such as example.com/gpu.
func validateContainerResourceName(n corev1.ResourceName, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(n)) {
		errs = append(errs, field.Invalid(path, n, msg))
	}
	unprefixed := !strings.Contains(string(n), "/")
	if len(errs) == 0 && unprefixed && !isStandardResource(n) {
		errs = append(errs, field.Invalid(path, n, "must be a standard resource type or fully qualified"))
	}
	switch {
	case unprefixed:
		if !containerResourceNames.Has(n) && !isHugePages(n) {
			errs = append(errs, field.Invalid(path, n, standardForContainerMsg))
		}
	case !isNativeResource(n) && !isExtendedResource(n):
		errs = append(errs, field.Invalid(path, n, "doesn't follow extended resource name standard"))
	}
	return errs
}

// validateQuantity: never negative; whole numbers for counted and
// extended resources.
func validateQuantity(n corev1.ResourceName, q resource.Quantity, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Cmp(resource.Quantity{}) < 0 {
		errs = append(errs, field.Invalid(path, q.String(), apivalidation.IsNegativeErrorMsg))
	}
	if (countedResourceNames.Has(n) || isExtendedResource(n)) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(path, q, notIntegerDetail))
	}
	return errs
}

// hugePagesMultipleError reports a hugepages quantity that is not a whole
// number of pages.
func hugePagesMultipleError(n corev1.ResourceName, q resource.Quantity) error {
	size, err := resource.ParseQuantity(strings.TrimPrefix(string(n), hugePagesPrefix))
	if err == nil && size.Sign() > 0 && size.MilliValue()%1000 == 0 && q.Value()%size.Value() == 0 {
		return nil
	}
	return fmt.Errorf("%s is not positive integer multiple of %s", q.String(), n)
}

func sortedResourceNames(l corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// validateResources checks a container's requests and limits: known names,
// valid quantities, requests not above limits (equal to them for resources
// that cannot be overcommitted). kube-apiserver walks the maps in random
// order; here names are sorted so the answer is stable.
func validateResources(r *corev1.ResourceRequirements, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	limPath, reqPath := path.Child("limits"), path.Child("requests")
	var cpuOrMemory, hugePages bool
	for _, n := range sortedResourceNames(r.Limits) {
		q, p := r.Limits[n], limPath.Key(string(n))
		errs = append(errs, validateContainerResourceName(n, p)...)
		errs = append(errs, validateQuantity(n, q, p)...)
		if isHugePages(n) {
			hugePages = true
			if err := hugePagesMultipleError(n, q); err != nil {
				errs = append(errs, field.Invalid(p, q.String(), err.Error()))
			}
		}
		if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
			cpuOrMemory = true
		}
	}
	for _, n := range sortedResourceNames(r.Requests) {
		q, p := r.Requests[n], reqPath.Key(string(n))
		errs = append(errs, validateContainerResourceName(n, p)...)
		errs = append(errs, validateQuantity(n, q, p)...)
		if lim, ok := r.Limits[n]; ok {
			if q.Cmp(lim) != 0 && !overcommitAllowed(n) {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be equal to %s limit of %s", n, lim.String())))
			} else if q.Cmp(lim) > 0 {
				errs = append(errs, field.Invalid(reqPath, q.String(), fmt.Sprintf("must be less than or equal to %s limit of %s", n, lim.String())))
			}
		} else if !overcommitAllowed(n) {
			errs = append(errs, field.Required(limPath, "Limit must be set for non overcommitable resources"))
		}
		if isHugePages(n) {
			hugePages = true
			if err := hugePagesMultipleError(n, q); err != nil {
				errs = append(errs, field.Invalid(p, q.String(), err.Error()))
			}
		}
		if n == corev1.ResourceCPU || n == corev1.ResourceMemory {
			cpuOrMemory = true
		}
	}
	if hugePages && !cpuOrMemory {
		errs = append(errs, field.Forbidden(path, "HugePages require cpu or memory"))
	}
	return errs
}

func validateRestartPolicy(p corev1.RestartPolicy, path *field.Path) field.ErrorList {
	switch p {
	case corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
		return nil
	case "":
		return field.ErrorList{field.Required(path, "")}
	}
	return field.ErrorList{field.NotSupported(path, p,
		[]corev1.RestartPolicy{corev1.RestartPolicyAlways, corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever})}
}

func validateDNSPolicy(p corev1.DNSPolicy, path *field.Path) field.ErrorList {
	switch p {
	case corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone:
		return nil
	case "":
		return field.ErrorList{field.Required(path, "")}
	}
	return field.ErrorList{field.NotSupported(path, p,
		[]corev1.DNSPolicy{corev1.DNSClusterFirstWithHostNet, corev1.DNSClusterFirst, corev1.DNSDefault, corev1.DNSNone})}
}

// validateDNSNone: dnsPolicy None needs a dnsConfig with a nameserver. (The
// other dnsConfig limits are not checked.)
func validateDNSNone(spec *corev1.PodSpec, path *field.Path) field.ErrorList {
	if spec.DNSPolicy != corev1.DNSNone {
		return nil
	}
	if spec.DNSConfig == nil {
		return field.ErrorList{field.Required(path, fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone))}
	}
	if len(spec.DNSConfig.Nameservers) == 0 {
		return field.ErrorList{field.Required(path.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone))}
	}
	return nil
}

func validateSchedulingGates(gates []corev1.PodSchedulingGate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, g := range gates {
		errs = append(errs, qualifiedName(g.Name, path.Index(i))...)
		if seen.Has(g.Name) {
			errs = append(errs, field.Duplicate(path.Index(i), g.Name))
		}
		seen.Insert(g.Name)
	}
	return errs
}

// validateTolerations checks keys, operator and value, effect, and that
// tolerationSeconds comes only with NoExecute.
func validateTolerations(ts []corev1.Toleration, path *field.Path, rules podRules) field.ErrorList {
	var errs field.ErrorList
	for i, t := range ts {
		idx := path.Index(i)
		if t.Key != "" {
			errs = append(errs, metav1validation.ValidateLabelName(t.Key, idx.Child("key"))...)
		}
		if t.Key == "" && t.Operator != corev1.TolerationOpExists {
			errs = append(errs, field.Invalid(idx.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != corev1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(idx.Child("effect"), t.Effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case corev1.TolerationOpEqual, "":
			if msgs := validation.IsValidLabelValue(t.Value); len(msgs) != 0 {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case corev1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case corev1.TolerationOpLt, corev1.TolerationOpGt:
			if !rules.comparisonOperators {
				errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator, []corev1.TolerationOperator{
					corev1.TolerationOpEqual, corev1.TolerationOpExists, corev1.TolerationOpLt, corev1.TolerationOpGt}))
			}
		default:
			errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator,
				[]corev1.TolerationOperator{corev1.TolerationOpEqual, corev1.TolerationOpExists}))
		}
		if t.Effect != "" {
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, []corev1.TaintEffect{
					corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
			}
		}
	}
	return errs
}

// ValidatePodUpdate checks an update of the pod old to p through the pods
// endpoint: p must be a valid pod, and of its spec only the container
// images, activeDeadlineSeconds (set, or lowered), tolerations (added to),
// schedulingGates (removed from), a negative terminationGracePeriodSeconds
// (raised to 1) and, while the pod has scheduling gates, nodeSelector
// (added to) may change. Anything else gives
// "spec: Forbidden: pod updates may not change fields other than ..."
// followed by a unified diff of the two specs (as JSON; kube-apiserver
// prints its internal types, which are longer). Neither pod is changed.
func ValidatePodUpdate(p, old *corev1.Pod) field.ErrorList {
	specPath := field.NewPath("spec")
	rules := podRulesFor(&old.Spec)
	errs := validatePodSpecForPod(p, rules)

	cerrs, stop := validateContainerUpdates(p.Spec.Containers, old.Spec.Containers, specPath.Child("containers"))
	errs = append(errs, cerrs...)
	if stop {
		return errs
	}
	cerrs, stop = validateContainerUpdates(p.Spec.InitContainers, old.Spec.InitContainers, specPath.Child("initContainers"))
	errs = append(errs, cerrs...)
	if stop {
		return errs
	}

	deadlinePath := specPath.Child("activeDeadlineSeconds")
	if n := p.Spec.ActiveDeadlineSeconds; n != nil {
		if *n < 0 || *n > math.MaxInt32 {
			return append(errs, field.Invalid(deadlinePath, *n, validation.InclusiveRangeError(0, math.MaxInt32)))
		}
		if o := old.Spec.ActiveDeadlineSeconds; o != nil && *o < *n {
			return append(errs, field.Invalid(deadlinePath, *n, "must be less than or equal to previous value"))
		}
	} else if old.Spec.ActiveDeadlineSeconds != nil {
		errs = append(errs, field.Invalid(deadlinePath, p.Spec.ActiveDeadlineSeconds, "must not update from a positive integer to nil value"))
	}

	errs = append(errs, validateOnlyAddedTolerations(p.Spec.Tolerations, old.Spec.Tolerations, specPath.Child("tolerations"), rules)...)
	errs = append(errs, validateOnlyRemovedGates(p.Spec.SchedulingGates, old.Spec.SchedulingGates, specPath.Child("schedulingGates"))...)

	if apiequality.Semantic.DeepEqual(p.Spec, old.Spec) {
		return errs
	}
	// Put the old values back into what may change; whatever still
	// differs is a forbidden change.
	munged := *p.Spec.DeepCopy()
	for i := range munged.Containers {
		munged.Containers[i].Image = old.Spec.Containers[i].Image
	}
	for i := range munged.InitContainers {
		munged.InitContainers[i].Image = old.Spec.InitContainers[i].Image
	}
	munged.ActiveDeadlineSeconds = nil
	if old.Spec.ActiveDeadlineSeconds != nil {
		v := *old.Spec.ActiveDeadlineSeconds
		munged.ActiveDeadlineSeconds = &v
	}
	munged.SchedulingGates = old.Spec.SchedulingGates
	munged.Tolerations = old.Spec.Tolerations
	if o, n := old.Spec.TerminationGracePeriodSeconds, munged.TerminationGracePeriodSeconds; o != nil && *o < 0 && n != nil && *n == 1 {
		munged.TerminationGracePeriodSeconds = o
	}
	// A pod still held by scheduling gates may gain nodeSelector entries.
	// (Its node affinity may be narrowed too; that rule is not reproduced.)
	if len(old.Spec.SchedulingGates) > 0 && !apiequality.Semantic.DeepEqual(munged.NodeSelector, old.Spec.NodeSelector) {
		for k, v := range old.Spec.NodeSelector {
			if w, ok := munged.NodeSelector[k]; !ok || v != w {
				errs = append(errs, field.Invalid(specPath.Child("nodeSelector"), munged.NodeSelector, "only additions to spec.nodeSelector are allowed (no mutations or deletions)"))
				break
			}
		}
		munged.NodeSelector = old.Spec.NodeSelector
	}
	if !apiequality.Semantic.DeepEqual(munged, old.Spec) {
		errs = append(errs, field.Forbidden(specPath, fmt.Sprintf("pod updates may not change fields other than %s\n%v",
			strings.Join(updatablePodSpecFields, ","), diff.Diff(old.Spec, munged))))
	}
	return errs
}

// validateContainerUpdates: the number of containers is fixed and every
// container keeps an image. stop means the rest of the update checks
// cannot run.
func validateContainerUpdates(cs, old []corev1.Container, path *field.Path) (field.ErrorList, bool) {
	if len(cs) != len(old) {
		return field.ErrorList{field.Forbidden(path, "pod updates may not add or remove containers")}, true
	}
	var errs field.ErrorList
	for i, c := range cs {
		if c.Image == "" {
			errs = append(errs, field.Required(path.Index(i).Child("image"), ""))
		}
		if len(strings.TrimSpace(c.Image)) != len(c.Image) {
			errs = append(errs, field.Invalid(path.Index(i).Child("image"), c.Image, imageWhitespaceDetail))
		}
	}
	return errs, false
}

// validateOnlyAddedTolerations: every old toleration must still be there
// (its tolerationSeconds may change), and the list must be valid.
func validateOnlyAddedTolerations(ts, old []corev1.Toleration, path *field.Path, rules podRules) field.ErrorList {
	for _, o := range old {
		found := false
		for _, t := range ts {
			o.TolerationSeconds = t.TolerationSeconds
			if reflect.DeepEqual(o, t) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(path, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	return validateTolerations(ts, path, rules)
}

// validateOnlyRemovedGates: scheduling gates may be removed, not added.
func validateOnlyRemovedGates(gates, old []corev1.PodSchedulingGate, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		if !slices.ContainsFunc(old, func(o corev1.PodSchedulingGate) bool { return o.Name == g.Name }) {
			errs = append(errs, field.Forbidden(path.Index(i).Child("name"),
				fmt.Sprintf("only deletion is allowed, but found new scheduling gate '%s'", g.Name)))
		}
	}
	return errs
}

// ValidatePodStatusUpdate checks an update of the pod old to p through
// pods/status: condition types, the node (unchanged), nominatedNodeName,
// observedGeneration, qosClass (unchanged), that containers which
// terminated for good do not come back, and the pod and host IPs.
// kube-apiserver does not check status.phase, condition statuses, nor
// that containerStatuses name containers of the pod, and neither does
// this. Neither pod is changed.
func ValidatePodStatusUpdate(p, old *corev1.Pod) field.ErrorList {
	path := field.NewPath("status")
	errs := validatePodConditions(p.Status.Conditions, path.Child("conditions"))
	if p.Spec.NodeName != old.Spec.NodeName {
		errs = append(errs, field.Forbidden(path.Child("nodeName"), "may not be changed directly"))
	}
	nominated := p.Status.NominatedNodeName
	if nominated != "" && nominated != old.Status.NominatedNodeName {
		for _, msg := range apivalidation.NameIsDNSSubdomain(nominated, false) {
			errs = append(errs, field.Invalid(path.Child("nominatedNodeName"), nominated, msg))
		}
		if old.Spec.NodeName != "" {
			errs = append(errs, field.Forbidden(path.Child("nominatedNodeName"), "may not be set on pods that are already bound to a node"))
		}
	}
	if p.Status.ObservedGeneration < 0 {
		errs = append(errs, field.Invalid(path.Child("observedGeneration"), p.Status.ObservedGeneration, nonNegativeIntDetail))
	}
	errs = append(errs, apivalidation.ValidateImmutableField(p.Status.QOSClass, old.Status.QOSClass, path.Child("qosClass"))...)
	errs = append(errs, validateStateTransitions(p.Status.ContainerStatuses, old.Status.ContainerStatuses, path.Child("containerStatuses"), &old.Spec, old.Spec.Containers)...)
	errs = append(errs, validateStateTransitions(p.Status.InitContainerStatuses, old.Status.InitContainerStatuses, path.Child("initContainerStatuses"), &old.Spec, old.Spec.InitContainers)...)
	errs = append(errs, validateEphemeralStateTransitions(p.Status.EphemeralContainerStatuses, old.Status.EphemeralContainerStatuses, path.Child("ephemeralContainerStatuses"))...)
	errs = append(errs, validatePodIPs(&p.Status, &old.Status)...)
	errs = append(errs, validateHostIPs(&p.Status, &old.Status)...)
	return errs
}

// validatePodConditions: condition types other than the built-in ones must
// be qualified names. (kube-apiserver reports them under ".Type".)
func validatePodConditions(cs []corev1.PodCondition, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, c := range cs {
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(path.Index(i).Child("observedGeneration"), c.ObservedGeneration, nonNegativeIntDetail))
		}
		switch c.Type {
		case corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized:
			continue
		}
		errs = append(errs, qualifiedName(string(c.Type), path.Index(i).Child("Type"))...)
	}
	return errs
}

// validateStateTransitions forbids a terminated container to be reported
// running again unless its restart policy (or a restart rule) lets it
// restart. A status for a name that is no container in the spec may not
// leave the terminated state.
func validateStateTransitions(statuses, old []corev1.ContainerStatus, path *field.Path, spec *corev1.PodSpec, cs []corev1.Container) field.ErrorList {
	if restartsEverything(spec) {
		return nil
	}
	var errs field.ErrorList
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, s := range statuses {
			if s.Name != o.Name || s.State.Terminated != nil {
				continue
			}
			allowed := false
			for _, c := range cs {
				if c.Name == o.Name {
					allowed = containerShouldRestart(&c, spec, o.State.Terminated.ExitCode)
					break
				}
			}
			if !allowed {
				errs = append(errs, field.Forbidden(path.Index(i).Child("state"), notTerminatedDetail))
			}
			break
		}
	}
	return errs
}

// validateEphemeralStateTransitions: ephemeral containers never restart.
func validateEphemeralStateTransitions(statuses, old []corev1.ContainerStatus, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, o := range old {
		if o.State.Terminated == nil {
			continue
		}
		for _, s := range statuses {
			if s.Name == o.Name && s.State.Terminated == nil {
				errs = append(errs, field.Forbidden(path.Index(i).Child("state"), notTerminatedDetail))
			}
		}
	}
	return errs
}

// restartsEverything: some container has a RestartAllContainers rule, so
// any container may run again.
func restartsEverything(spec *corev1.PodSpec) bool {
	for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, c := range cs {
			for _, r := range c.RestartPolicyRules {
				if r.Action == corev1.ContainerRestartRuleActionRestartAllContainers {
					return true
				}
			}
		}
	}
	return false
}

// containerShouldRestart decides as the kubelet does whether c restarts
// after exiting with code: a matching restart rule, else the container's
// restartPolicy, else the pod's.
func containerShouldRestart(c *corev1.Container, spec *corev1.PodSpec, code int32) bool {
	if c.RestartPolicy != nil {
		for _, r := range c.RestartPolicyRules {
			if r.ExitCodes == nil {
				continue
			}
			in := slices.Contains(r.ExitCodes.Values, code)
			matched := (r.ExitCodes.Operator == corev1.ContainerRestartRuleOnExitCodesOpIn && in) ||
				(r.ExitCodes.Operator == corev1.ContainerRestartRuleOnExitCodesOpNotIn && !in)
			if !matched {
				continue
			}
			if r.Action == corev1.ContainerRestartRuleActionRestart || r.Action == corev1.ContainerRestartRuleActionRestartAllContainers {
				return true
			}
			break
		}
		switch *c.RestartPolicy {
		case corev1.ContainerRestartPolicyAlways:
			return true
		case corev1.ContainerRestartPolicyOnFailure:
			return code != 0
		case corev1.ContainerRestartPolicyNever:
			return false
		}
	}
	switch spec.RestartPolicy {
	case corev1.RestartPolicyOnFailure:
		return code != 0
	case corev1.RestartPolicyNever:
		return false
	}
	return true
}

// effectivePodIPs returns status.podIPs as kube-apiserver sees it after
// defaulting, which keeps podIP and podIPs in step: a podIP that is not
// podIPs[0] replaces the list.
func effectivePodIPs(st *corev1.PodStatus) []string {
	if st.PodIP != "" && (len(st.PodIPs) == 0 || st.PodIPs[0].IP != st.PodIP) {
		return []string{st.PodIP}
	}
	ips := make([]string, 0, len(st.PodIPs))
	for _, ip := range st.PodIPs {
		ips = append(ips, ip.IP)
	}
	return ips
}

// reportedIP is how kube-apiserver prints a list of pod or host IPs in an
// error: its internal type has no JSON tags, so the key is "IP".
type reportedIP struct{ IP string }

func reportedIPs(ips []string) []reportedIP {
	out := make([]reportedIP, len(ips))
	for i, ip := range ips {
		out[i] = reportedIP{IP: ip}
	}
	return out
}

// validatePodIPs: each pod IP valid (an invalid one already stored may
// stay) and at most one per family. The rules that podIP and podIPs agree
// cannot fail here, as defaulting keeps them in step.
func validatePodIPs(st, old *corev1.PodStatus) field.ErrorList {
	path := field.NewPath("status", "podIPs")
	ips, oldIPs := effectivePodIPs(st), effectivePodIPs(old)
	var errs field.ErrorList
	for i, ip := range ips {
		errs = append(errs, validation.IsValidIPForLegacyField(path.Index(i), ip, true, oldIPs)...)
	}
	return append(errs, validateIPFamilies(ips, path)...)
}

// validateIPFamilies: at most one IPv4 and one IPv6 address.
func validateIPFamilies(ips []string, path *field.Path) field.ErrorList {
	if len(ips) < 2 {
		return nil
	}
	var errs field.ErrorList
	dual, err := netutils.IsDualStackIPStrings(ips)
	if err != nil {
		errs = append(errs, field.InternalError(path, fmt.Errorf("failed to check for dual stack with error:%v", err)))
	}
	if !dual || len(ips) > 2 {
		errs = append(errs, field.Invalid(path, reportedIPs(ips), "may specify no more than one IP for each IP family"))
	}
	return errs
}

// validateHostIPs: hostIPs[0] equal to hostIP, each IP valid, at most one
// per family.
func validateHostIPs(st, old *corev1.PodStatus) field.ErrorList {
	if len(st.HostIPs) == 0 {
		return nil
	}
	path := field.NewPath("status", "hostIPs")
	var errs field.ErrorList
	if st.HostIP != st.HostIPs[0].IP {
		errs = append(errs, field.Invalid(path.Index(0).Child("ip"), st.HostIPs[0].IP, "must be equal to `hostIP`"))
	}
	oldIPs := make([]string, 0, len(old.HostIPs))
	for _, ip := range old.HostIPs {
		oldIPs = append(oldIPs, ip.IP)
	}
	ips := make([]string, 0, len(st.HostIPs))
	for i, ip := range st.HostIPs {
		errs = append(errs, validation.IsValidIPForLegacyField(path.Index(i), ip.IP, true, oldIPs)...)
		ips = append(ips, ip.IP)
	}
	return append(errs, validateIPFamilies(ips, path)...)
}
