package admission

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// DefaultTolerationSecondsName is the DefaultTolerationSeconds plugin's name.
const DefaultTolerationSecondsName = "DefaultTolerationSeconds"

// DefaultNotReadyTolerationSeconds and DefaultUnreachableTolerationSeconds
// are kube-apiserver's defaults (its --default-not-ready-toleration-seconds
// and --default-unreachable-toleration-seconds flags): how long a pod stays
// on a node that turned NotReady or unreachable before it is evicted.
const (
	DefaultNotReadyTolerationSeconds    int64 = 300
	DefaultUnreachableTolerationSeconds int64 = 300
)

var podsResource = schema.GroupResource{Resource: "pods"}

// DefaultTolerationSeconds gives every pod a toleration of the
// node.kubernetes.io/not-ready:NoExecute and
// node.kubernetes.io/unreachable:NoExecute taints for a while, unless the
// pod already tolerates them. Use NewDefaultTolerationSeconds; the fields
// must not change once the plugin is in use. It is safe for concurrent use.
type DefaultTolerationSeconds struct {
	NotReadySeconds    int64
	UnreachableSeconds int64
}

var _ MutatingPlugin = (*DefaultTolerationSeconds)(nil)

// NewDefaultTolerationSeconds returns the plugin with kube-apiserver's
// default of 300 seconds for both taints.
func NewDefaultTolerationSeconds() *DefaultTolerationSeconds {
	return &DefaultTolerationSeconds{
		NotReadySeconds:    DefaultNotReadyTolerationSeconds,
		UnreachableSeconds: DefaultUnreachableTolerationSeconds,
	}
}

// Name returns "DefaultTolerationSeconds".
func (*DefaultTolerationSeconds) Name() string { return DefaultTolerationSecondsName }

// Handles reports whether upstream's DefaultTolerationSeconds handles op (creates and updates).
func (*DefaultTolerationSeconds) Handles(op Operation) bool { return handles(op, Create, Update) }

// Admit adds, to a pod being created or updated (not to its
// subresources), a toleration {key, operator Exists, effect NoExecute,
// tolerationSeconds} for each of the two taints the pod does not already
// tolerate. A toleration with the taint's key or no key, and effect
// NoExecute or no effect, counts as tolerating it whatever its operator
// and seconds; it is left as it is. Like kube-apiserver it runs on updates
// too, so a replaced pod keeps the tolerations it was given.
// Fields look like
// "spec.tolerations[+]=node.kubernetes.io/not-ready:NoExecute for 300s".
func (d *DefaultTolerationSeconds) Admit(_ context.Context, a *Attributes) ([]string, bool, error) {
	if a.Resource.GroupResource() != podsResource || a.Subresource != "" || (a.Operation != Create && a.Operation != Update) {
		return nil, false, nil
	}
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil, true, apierrors.NewBadRequest(fmt.Sprintf("expected *api.Pod but got %T", a.Object))
	}
	var fields []string
	for _, want := range []struct {
		key     string
		seconds int64
	}{
		{corev1.TaintNodeNotReady, d.NotReadySeconds},
		{corev1.TaintNodeUnreachable, d.UnreachableSeconds},
	} {
		if toleratesNoExecute(pod.Spec.Tolerations, want.key) {
			continue
		}
		seconds := want.seconds
		pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{
			Key:               want.key,
			Operator:          corev1.TolerationOpExists,
			Effect:            corev1.TaintEffectNoExecute,
			TolerationSeconds: &seconds,
		})
		fields = append(fields, fmt.Sprintf("spec.tolerations[+]=%s:%s for %ds", want.key, corev1.TaintEffectNoExecute, seconds))
	}
	return fields, true, nil
}

// toleratesNoExecute reports whether some toleration covers the NoExecute
// taint key, by key and effect only.
func toleratesNoExecute(ts []corev1.Toleration, key string) bool {
	for _, t := range ts {
		if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
			return true
		}
	}
	return false
}
