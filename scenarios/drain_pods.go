package scenarios

import (
	"context"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
)

// kubectl drain's words about the pods it will not (or will, with a flag)
// evict (k8s.io/kubectl/pkg/drain/filters.go).
const (
	daemonSetFatal    = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
	daemonSetWarning  = "ignoring DaemonSet-managed Pods"
	localStorageFatal = "Pods with local storage (use --delete-emptydir-data to override)"
	unmanagedFatal    = "Pods that declare no controller (use --force to override)"
	unmanagedWarning  = "deleting Pods that declare no controller"
)

// podVerdict is what a drain filter says of a pod: evict it or not, and
// a warning or an error about it.
type podVerdict struct {
	evict            bool
	warning, failure string
}

// podsToEvict is kubectl's GetPodsForDeletion: the node's pods (all
// namespaces, field selector spec.nodeName) through the filters in
// kubectl's order (daemonSet, mirror, localStorage, unreplicated; the
// first that says not to evict decides). It returns the pods to evict,
// the warnings (message: ns/pod, ...) and kubectl's errors ("cannot
// delete MESSAGE: ns/pod, ...").
func (a *DrainAction) podsToEvict(ctx context.Context, cs kubernetes.Interface) ([]corev1.Pod, []string, []error) {
	list, err := cs.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", a.Node).String()})
	if err != nil {
		return nil, nil, []error{err}
	}
	var pods []corev1.Pod
	warnings, failures := map[string][]string{}, map[string][]string{}
	for _, pod := range list.Items {
		v := a.verdict(ctx, cs, &pod)
		id := pod.Namespace + "/" + pod.Name
		if v.warning != "" {
			warnings[v.warning] = append(warnings[v.warning], id)
		}
		if v.failure != "" {
			failures[v.failure] = append(failures[v.failure], id)
		}
		if v.evict && v.failure == "" {
			pods = append(pods, pod)
		}
	}
	var errs []error
	for _, msg := range sortedKeys(failures) {
		errs = append(errs, fmt.Errorf("cannot delete %s: %s", msg, strings.Join(failures[msg], ", ")))
	}
	var warns []string
	for _, msg := range sortedKeys(warnings) {
		warns = append(warns, msg+": "+strings.Join(warnings[msg], ", "))
	}
	return pods, warns, errs
}

// verdict runs kubectl's filters on pod, in their order.
func (a *DrainAction) verdict(ctx context.Context, cs kubernetes.Interface, pod *corev1.Pod) podVerdict {
	finished := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
	ref := metav1.GetControllerOf(pod)
	if ref != nil && ref.Kind == "DaemonSet" && ref.APIVersion == appsv1.SchemeGroupVersion.String() && !finished {
		if _, err := cs.AppsV1().DaemonSets(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{}); err != nil {
			if apierrors.IsNotFound(err) && a.Force {
				return podVerdict{evict: true, warning: err.Error()}
			}
			return podVerdict{failure: err.Error()}
		}
		if !a.IgnoreDaemonSets {
			return podVerdict{failure: daemonSetFatal}
		}
		return podVerdict{warning: daemonSetWarning}
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return podVerdict{}
	}
	if hasEmptyDir(pod) && !finished && !a.DeleteEmptyDirData {
		return podVerdict{failure: localStorageFatal}
	}
	// Only the last filter's verdict is kept: localStorage's warning
	// (localStorageWarning) is dropped by unreplicated's, as upstream's
	// TODO says.
	if ref == nil && !finished {
		if !a.Force {
			return podVerdict{failure: unmanagedFatal}
		}
		return podVerdict{evict: true, warning: unmanagedWarning}
	}
	return podVerdict{evict: true}
}

// hasEmptyDir says whether the pod has an emptyDir volume.
func hasEmptyDir(pod *corev1.Pod) bool {
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil {
			return true
		}
	}
	return false
}

// sortedKeys returns m's keys in order (kubectl ranges over a map; a
// fixed order keeps transcripts stable).
func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
