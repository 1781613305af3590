package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/kubesim/kubesim/apiserver/storage"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Pods is the pods resource. Pods bound to a node are deleted gracefully;
// their status changes only through pods/status, their node only through
// pods/binding.
var Pods = &Resource{
	Kind:         corev1.SchemeGroupVersion.WithKind("Pod"),
	Plural:       "pods",
	Singular:     "pod",
	ShortNames:   []string{"po"},
	Categories:   []string{"all"},
	Namespaced:   true,
	NewFunc:      func() runtime.Object { return &corev1.Pod{} },
	NewListFunc:  func() runtime.Object { return &corev1.PodList{} },
	Status:       &PodStatusStrategy,
	Table:        printers.Pods,
	Default:      DefaultPod,
	ValidateName: validation.NameIsDNSSubdomain,
	Strategy: Strategy{
		PrepareForCreate:         preparePodForCreate,
		PrepareForUpdate:         preparePodForUpdate,
		Validate:                 validatePodObject,
		ValidateUpdate:           validatePodUpdateObject,
		AllowUnconditionalUpdate: true,
	},
	Fields: podFields,
	FieldLabels: []string{
		"metadata.name", "metadata.namespace", "spec.nodeName", "spec.restartPolicy",
		"spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
		"status.podIP", "status.podIPs", "status.nominatedNodeName",
	},
	CheckGracefulDelete: podGracefulDelete,
	// As kube-apiserver's pod storage (NodeNameTriggerFunc): a kubelet's
	// watch of its node's pods sees only their changes.
	WatchIndex: &storage.WatchIndex{Field: "spec.nodeName", Value: func(obj runtime.Object) string { return obj.(*corev1.Pod).Spec.NodeName }},
}

// PodStatusStrategy is the strategy of pods/status: only the status (and
// metadata other than ownerReferences) may change.
var PodStatusStrategy = Strategy{
	PrepareForUpdate: func(obj, old runtime.Object) {
		p, o := obj.(*corev1.Pod), old.(*corev1.Pod)
		p.Spec = o.Spec
		p.DeletionTimestamp = nil
		p.OwnerReferences = o.OwnerReferences
	},
	ValidateUpdate:           validatePodStatusObject,
	AllowUnconditionalUpdate: true,
}

func preparePodForCreate(obj runtime.Object) {
	p := obj.(*corev1.Pod)
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: PodQOS(p)}
	p.Generation = 1
}

func preparePodForUpdate(obj, old runtime.Object) {
	p, o := obj.(*corev1.Pod), old.(*corev1.Pod)
	p.Status = o.Status
	if !apiequality.Semantic.DeepEqual(p.Spec, o.Spec) {
		p.Generation = o.Generation + 1
	}
}

func podFields(obj runtime.Object) fields.Set {
	p := obj.(*corev1.Pod)
	var podIP string
	if len(p.Status.PodIPs) > 0 {
		podIP = p.Status.PodIPs[0].IP
	}
	return fields.Set{
		"metadata.name":            p.Name,
		"metadata.namespace":       p.Namespace,
		"spec.nodeName":            p.Spec.NodeName,
		"spec.restartPolicy":       string(p.Spec.RestartPolicy),
		"spec.schedulerName":       p.Spec.SchedulerName,
		"spec.serviceAccountName":  p.Spec.ServiceAccountName,
		"spec.hostNetwork":         strconv.FormatBool(p.Spec.HostNetwork),
		"status.phase":             string(p.Status.Phase),
		"status.podIP":             podIP,
		"status.podIPs":            podIP,
		"status.nominatedNodeName": p.Status.NominatedNodeName,
	}
}

// podGracefulDelete: the grace period comes from the request, else from
// spec.terminationGracePeriodSeconds; a pod no kubelet runs (unbound, or
// finished) goes at once.
func podGracefulDelete(obj runtime.Object, opts *metav1.DeleteOptions) bool {
	p := obj.(*corev1.Pod)
	var period int64
	switch {
	case opts.GracePeriodSeconds != nil:
		period = *opts.GracePeriodSeconds
	case p.Spec.TerminationGracePeriodSeconds != nil:
		period = *p.Spec.TerminationGracePeriodSeconds
	}
	if p.Spec.NodeName == "" || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		period = 0
	}
	opts.GracePeriodSeconds = &period
	return true
}

// PodQOS computes a pod's QoS class from its containers' cpu and memory
// requests and limits: Guaranteed when every container's requests equal
// its non-zero limits, BestEffort when nothing is set, Burstable otherwise.
func PodQOS(p *corev1.Pod) corev1.PodQOSClass {
	var qos corev1.PodQOSClass
	all := append(append([]corev1.Container{}, p.Spec.InitContainers...), p.Spec.Containers...)
	for _, c := range all {
		cq := containerQOS(c.Resources)
		switch {
		case cq == corev1.PodQOSBurstable:
			return cq
		case qos == "":
			qos = cq
		case qos != cq:
			return corev1.PodQOSBurstable
		}
	}
	if qos == "" {
		return corev1.PodQOSBestEffort
	}
	return qos
}

func containerQOS(r corev1.ResourceRequirements) corev1.PodQOSClass {
	if len(r.Requests) == 0 && len(r.Limits) == 0 {
		return corev1.PodQOSBestEffort
	}
	var qos corev1.PodQOSClass
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, lim := r.Requests[name], r.Limits[name]
		var q corev1.PodQOSClass
		switch {
		case !req.Equal(lim):
			return corev1.PodQOSBurstable
		case req.IsZero():
			q = corev1.PodQOSBestEffort
		default:
			q = corev1.PodQOSGuaranteed
		}
		if qos == "" {
			qos = q
		} else if qos != q {
			return corev1.PodQOSBurstable
		}
	}
	return qos
}

// Binder serves pods/binding: it assigns a pod to a node.
type Binder struct {
	pods *Store
}

// NewBinder returns the pods/binding endpoint for pods.
func NewBinder(pods *Store) *Binder { return &Binder{pods: pods} }

// Bind sets spec.nodeName and the PodScheduled=True condition in one write,
// as kube-apiserver's binding endpoint does. A pod already bound or being
// deleted gives 409 Conflict on pods/binding. On success it returns a
// Success Status.
func (b *Binder) Bind(ctx context.Context, namespace, name string, binding *corev1.Binding, opts Options) (*metav1.Status, error) {
	if binding.Namespace != "" && binding.Namespace != namespace {
		return nil, apierrors.NewBadRequest("the namespace of the provided object does not match the namespace sent on the request")
	}
	if binding.Name != name {
		return nil, apierrors.NewBadRequest("name in URL does not match name in Binding object")
	}
	var errs field.ErrorList
	if binding.Target.Kind != "" && binding.Target.Kind != "Node" {
		errs = append(errs, field.NotSupported(field.NewPath("target", "kind"), binding.Target.Kind, []string{"Node", "<empty>"}))
	}
	if binding.Target.Name == "" {
		errs = append(errs, field.Required(field.NewPath("target", "name"), ""))
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), name, errs)
	}
	key, err := b.pods.checkedKey(namespace, name)
	if err != nil {
		return nil, err
	}
	var precond *storage.Preconditions
	if binding.UID != "" || binding.ResourceVersion != "" {
		precond = &storage.Preconditions{}
		if binding.UID != "" {
			precond.UID = &binding.UID
		}
		if binding.ResourceVersion != "" {
			precond.ResourceVersion = &binding.ResourceVersion
		}
	}
	_, err = b.pods.storage.GuaranteedUpdate(ctx, key, precond, false, storage.WriteOptions{DryRun: opts.DryRun}, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*corev1.Pod)
		switch {
		case p.DeletionTimestamp != nil:
			return nil, fmt.Errorf("pod %s is being deleted, cannot be assigned to a host", p.Name)
		case p.Spec.NodeName != "":
			return nil, fmt.Errorf("pod %v is already assigned to node %q", p.Name, p.Spec.NodeName)
		case len(p.Spec.SchedulingGates) != 0:
			return nil, fmt.Errorf("pod %v has non-empty .spec.schedulingGates", p.Name)
		}
		p.Spec.NodeName = binding.Target.Name
		for k, v := range binding.Annotations {
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations[k] = v
		}
		SetPodCondition(&p.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue})
		return p, nil
	})
	if err != nil {
		err = b.pods.interpret(err, name)
		var se *apierrors.StatusError
		if !errors.As(err, &se) {
			err = apierrors.NewConflict(corev1.Resource("pods/binding"), name, err)
		}
		return nil, err
	}
	return &metav1.Status{Status: metav1.StatusSuccess}, nil
}

// SetPodCondition adds or replaces the condition of c's type. The
// transition time is now if the status changed, else the old one is kept.
func SetPodCondition(status *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.Now()
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		*old = c
		return
	}
	status.Conditions = append(status.Conditions, c)
}

// DefaultPod fills in what kube-apiserver's defaulting fills in for a pod,
// and returns what it set as "path=value" (value in JSON), in order.
func DefaultPod(obj runtime.Object) []string {
	p := obj.(*corev1.Pod)
	s := &p.Spec
	var d defaulted
	if s.ServiceAccountName == "" && s.DeprecatedServiceAccount != "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount
		d.add("spec.serviceAccountName", s.ServiceAccountName)
	}
	if s.DeprecatedServiceAccount != s.ServiceAccountName {
		s.DeprecatedServiceAccount = s.ServiceAccountName
		d.add("spec.serviceAccount", s.DeprecatedServiceAccount)
	}
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
		d.add("spec.dnsPolicy", s.DNSPolicy)
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
		d.add("spec.restartPolicy", s.RestartPolicy)
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
		d.add("spec.securityContext", s.SecurityContext)
	}
	if s.TerminationGracePeriodSeconds == nil {
		period := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &period
		d.add("spec.terminationGracePeriodSeconds", period)
	} else if *s.TerminationGracePeriodSeconds < 0 {
		one := int64(1)
		s.TerminationGracePeriodSeconds = &one
		d.add("spec.terminationGracePeriodSeconds", one)
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
		d.add("spec.schedulerName", s.SchedulerName)
	}
	if s.EnableServiceLinks == nil {
		on := corev1.DefaultEnableServiceLinks
		s.EnableServiceLinks = &on
		d.add("spec.enableServiceLinks", on)
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i], fmt.Sprintf("spec.initContainers[%d]", i), &d)
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i], fmt.Sprintf("spec.containers[%d]", i), &d)
	}
	// status.podIP and status.podIPs[0] say the same; either fills the other.
	st := &p.Status
	switch {
	case st.PodIP != "" && len(st.PodIPs) == 0:
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
		d.add("status.podIPs", st.PodIPs)
	case st.PodIP == "" && len(st.PodIPs) > 0:
		st.PodIP = st.PodIPs[0].IP
		d.add("status.podIP", st.PodIP)
	}
	return d
}

func defaultContainer(c *corev1.Container, path string, d *defaulted) {
	if c.ImagePullPolicy == "" {
		if imageTag(c.Image) == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		} else {
			c.ImagePullPolicy = corev1.PullIfNotPresent
		}
		d.add(path+".imagePullPolicy", c.ImagePullPolicy)
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
		d.add(path+".terminationMessagePath", c.TerminationMessagePath)
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
		d.add(path+".terminationMessagePolicy", c.TerminationMessagePolicy)
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
			d.add(fmt.Sprintf("%s.ports[%d].protocol", path, i), c.Ports[i].Protocol)
		}
	}
	// Requests default to limits where only limits are given.
	names := make([]string, 0, len(c.Resources.Limits))
	for name := range c.Resources.Limits {
		names = append(names, string(name))
	}
	sort.Strings(names)
	for _, name := range names {
		lim := c.Resources.Limits[corev1.ResourceName(name)]
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if _, ok := c.Resources.Requests[corev1.ResourceName(name)]; !ok {
			c.Resources.Requests[corev1.ResourceName(name)] = lim.DeepCopy()
			d.add(path+".resources.requests."+name, lim.String())
		}
	}
}

// defaulted collects the fields defaulting set, as "path=value".
type defaulted []string

func (d *defaulted) add(path string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(fmt.Sprint(v))
	}
	*d = append(*d, path+"="+string(data))
}

// imageTag returns the tag of an image reference: "latest" when there is
// neither tag nor digest, "" when there is only a digest.
func imageTag(image string) string {
	if strings.Contains(image, "@") {
		before, _, _ := strings.Cut(image, "@")
		if i := strings.LastIndex(before, ":"); i > strings.LastIndex(before, "/") {
			return before[i+1:]
		}
		return ""
	}
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		return image[i+1:]
	}
	return "latest"
}
