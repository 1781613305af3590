package admission

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/kubernetes/pkg/apis/core"
	upcorev1 "k8s.io/kubernetes/pkg/apis/core/v1"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
)

// LimitRangerName is the LimitRanger plugin's name.
const LimitRangerName = limitranger.PluginName

// LimitRanger is kube-apiserver's LimitRanger plugin
// (plugin/pkg/admission/limitranger), run on the internal objects it
// reads. Mutating, it gives a new pod's containers and init containers
// the default requests and limits of the namespace's LimitRanges (type
// Container) they leave out, and says so in the pod's
// kubernetes.io/limit-ranger annotation; validating, it refuses a pod
// (or a claim) outside a LimitRange's min, max or maxLimitRequestRatio
// with 403 and upstream's message, e.g. `pods "p" is forbidden: maximum
// cpu usage per Container is 1, but limit is 2`. Pod updates other than
// resize are not its business. Safe for concurrent use.
type LimitRanger struct {
	plugin  *limitranger.LimitRanger
	actions limitranger.DefaultLimitRangerActions
}

var (
	_ MutatingPlugin   = (*LimitRanger)(nil)
	_ ValidatingPlugin = (*LimitRanger)(nil)
)

// NewLimitRanger returns the plugin reading LimitRanges from f's
// LimitRange informer (which the caller starts) and, for a namespace
// the informer has none of, from client's list, as upstream's does.
func NewLimitRanger(f informers.SharedInformerFactory, client kubernetes.Interface) (*LimitRanger, error) {
	p, err := limitranger.NewLimitRanger(&limitranger.DefaultLimitRangerActions{})
	if err != nil {
		return nil, err
	}
	p.SetExternalKubeInformerFactory(f)
	p.SetExternalKubeClientSet(client)
	if err := p.ValidateInitialization(); err != nil {
		return nil, err
	}
	return &LimitRanger{plugin: p}, nil
}

// Name returns "LimitRanger".
func (*LimitRanger) Name() string { return LimitRangerName }

// Handles reports whether upstream's LimitRanger handles op (creates and updates).
func (*LimitRanger) Handles(op Operation) bool { return handles(op, Create, Update) }

// Admit runs upstream's Admit on the pod converted to the internal type
// and converts the result back when it set something. Fields look like
// "spec.containers[0].resources.requests.cpu=100m".
func (l *LimitRanger) Admit(ctx context.Context, a *Attributes) ([]string, bool, error) {
	in, old, ok, err := l.objects(a)
	if !ok || err != nil {
		return nil, ok, err
	}
	if err := l.plugin.Admit(ctx, upstreamAttributes(a, in, old), nil); err != nil {
		return nil, true, err
	}
	pod, ok := a.Object.(*corev1.Pod)
	internal, isPod := in.(*core.Pod)
	if !ok || !isPod {
		return nil, true, nil
	}
	fields := defaultedResources(pod, internal)
	if len(fields) == 0 {
		return nil, true, nil
	}
	out := &corev1.Pod{}
	if err := upcorev1.Convert_core_Pod_To_v1_Pod(internal, out, nil); err != nil {
		return nil, true, err
	}
	out.TypeMeta = pod.TypeMeta
	*pod = *out
	return fields, true, nil
}

// Validate runs upstream's Validate on the object converted to the
// internal type.
func (l *LimitRanger) Validate(ctx context.Context, a *Attributes) (bool, error) {
	in, old, ok, err := l.objects(a)
	if !ok || err != nil {
		return ok, err
	}
	return true, l.plugin.Validate(ctx, upstreamAttributes(a, in, old), nil)
}

// objects are a's object and old object converted to the internal types;
// ok is false for a request that is not the plugin's business (upstream's
// handler: creates and updates; its SupportsAttributes: pods, their
// resize, claims).
func (l *LimitRanger) objects(a *Attributes) (obj, old runtime.Object, ok bool, err error) {
	if a.Operation != Create && a.Operation != Update {
		return nil, nil, false, nil
	}
	if !l.actions.SupportsAttributes(upstreamAttributes(a, a.Object, a.OldObject)) {
		return nil, nil, false, nil
	}
	in, err := internalObject(a.Object)
	if err != nil {
		return nil, nil, true, err
	}
	oldIn, err := internalObject(a.OldObject)
	return in, oldIn, true, err
}

// defaultedResources lists the requests and limits the plugin gave the
// containers of in (the internal pod it defaulted) that pod (the request's)
// had not.
func defaultedResources(pod *corev1.Pod, in *core.Pod) []string {
	var fields []string
	add := func(path string, before corev1.ResourceList, after core.ResourceList) {
		var names []string
		for name := range after {
			if _, ok := before[corev1.ResourceName(name)]; !ok {
				names = append(names, string(name))
			}
		}
		slices.Sort(names)
		for _, name := range names {
			q := after[core.ResourceName(name)]
			fields = append(fields, fmt.Sprintf("%s.%s=%s", path, name, q.String()))
		}
	}
	for i := range min(len(pod.Spec.InitContainers), len(in.Spec.InitContainers)) {
		c, ic := pod.Spec.InitContainers[i], in.Spec.InitContainers[i]
		add(fmt.Sprintf("spec.initContainers[%d].resources.requests", i), c.Resources.Requests, ic.Resources.Requests)
		add(fmt.Sprintf("spec.initContainers[%d].resources.limits", i), c.Resources.Limits, ic.Resources.Limits)
	}
	for i := range min(len(pod.Spec.Containers), len(in.Spec.Containers)) {
		c, ic := pod.Spec.Containers[i], in.Spec.Containers[i]
		add(fmt.Sprintf("spec.containers[%d].resources.requests", i), c.Resources.Requests, ic.Resources.Requests)
		add(fmt.Sprintf("spec.containers[%d].resources.limits", i), c.Resources.Limits, ic.Resources.Limits)
	}
	return fields
}
