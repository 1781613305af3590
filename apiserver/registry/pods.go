package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	podutil "k8s.io/kubernetes/pkg/api/pod"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	corevalidation "k8s.io/kubernetes/pkg/apis/core/validation"

	"github.com/kubesim/kubesim/apiserver/storage"

	"github.com/kubesim/kubesim/apiserver/printers"
)

// Pods is the pods resource. Pods bound to a node are deleted gracefully;
// their status changes only through pods/status, their node only through
// pods/binding.
var Pods = &Resource{
	Kind:                corev1.SchemeGroupVersion.WithKind("Pod"),
	Plural:              "pods",
	ReturnDeletedObject: true,
	Singular:            "pod",
	ShortNames:          []string{"po"},
	Categories:          []string{"all"},
	Namespaced:          true,
	NewFunc:             func() runtime.Object { return &corev1.Pod{} },
	NewListFunc:         func() runtime.Object { return &corev1.PodList{} },
	Status:              &PodStatusStrategy,
	Table:               printers.Pods,
	Default:             defaultPod,
	Strategy: Strategy{
		PrepareForCreate:         preparePodForCreate,
		PrepareForUpdate:         preparePodForUpdate,
		Validate:                 validatePodObject,
		ValidateUpdate:           validatePodUpdateObject,
		WarningsOnCreate:         warnPodCreate,
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
		// As podStatusStrategy.PrepareForUpdate
		// (pkg/registry/core/pod/strategy.go): the QoS class, immutable,
		// is backfilled when a client left it out.
		if p.Status.QOSClass == "" {
			p.Status.QOSClass = o.Status.QOSClass
		}
	},
	ValidateUpdate:           validatePodStatusObject,
	WarningsOnUpdate:         warnPodStatusUpdate,
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
	if err := validateBinding(binding); err != nil {
		return nil, err
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

// validateBinding is the check of upstream's BindingREST.Create
// (pkg/registry/core/pod/storage/storage.go): ValidatePodBinding, whose
// errors it returns as an aggregate, not as an Invalid status, so that the
// client sees what kube-apiserver answers to an error that is not a status
// (responsewriters.ErrorToAPIStatus): 500, reason unknown, the aggregate's
// text.
func validateBinding(b *corev1.Binding) error {
	in, errs := toInternal(b, upcorev1.Convert_v1_Binding_To_core_Binding)
	if errs == nil {
		errs = corevalidation.ValidatePodBinding(in)
	}
	if len(errs) == 0 {
		return nil
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: errs.ToAggregate().Error(),
	}}
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

// DefaultPod applies kube-apiserver's defaults to a pod (see
// upstreamDefaults) and returns the fields they set, as "path=value".
func DefaultPod(obj runtime.Object) []string { return defaultPod(obj, true) }

var defaultPod = upstreamDefaults(upcorev1.SetObjectDefaults_Pod, upcorev1.Convert_v1_Pod_To_core_Pod, upcorev1.Convert_core_Pod_To_v1_Pod)

// podValidationOptions are the options upstream's pod strategies pass to
// validation: derived from the pod and the stored one (nil on create),
// for a pod rather than a template.
func podValidationOptions(p, old *core.Pod) corevalidation.PodValidationOptions {
	var opts corevalidation.PodValidationOptions
	if old == nil {
		opts = podutil.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, nil, &p.ObjectMeta, nil)
	} else {
		opts = podutil.GetValidationOptionsFromPodSpecAndMeta(&p.Spec, &old.Spec, &p.ObjectMeta, &old.ObjectMeta)
	}
	opts.ResourceIsPod = true
	return opts
}

// ValidatePod checks a pod about to be created as kube-apiserver's pod
// strategy does (ValidatePodCreate).
func ValidatePod(p *corev1.Pod) field.ErrorList { return validatePodObject(p) }

// validatePodObject, validatePodUpdateObject and validatePodStatusObject
// are the Validate and ValidateUpdate of upstream's podStrategy and
// podStatusStrategy (pkg/registry/core/pod/strategy.go).
var (
	validatePodObject = upstreamValidate(upcorev1.Convert_v1_Pod_To_core_Pod, func(p *core.Pod) field.ErrorList {
		return corevalidation.ValidatePodCreate(p, podValidationOptions(p, nil))
	})
	validatePodUpdateObject = upstreamValidateUpdate(upcorev1.Convert_v1_Pod_To_core_Pod, func(p, old *core.Pod) field.ErrorList {
		return corevalidation.ValidatePodUpdate(p, old, podValidationOptions(p, old))
	})
	validatePodStatusObject = upstreamValidateSubresource("status", upcorev1.Convert_v1_Pod_To_core_Pod, func(p, old *core.Pod) field.ErrorList {
		return corevalidation.ValidatePodStatusUpdate(p, old, podValidationOptions(p, old))
	})
)
