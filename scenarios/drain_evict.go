package scenarios

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// errGlobalTimeout ends a drain's context when its --timeout passes.
var errGlobalTimeout = errors.New("global timeout reached")

// evictAll is kubectl's deleteOrEvictPodsSimple: the pods to evict (or
// the filters' errors), the warnings, then every eviction at once; on an
// error, the pods still pending on the node.
func (a *DrainAction) evictAll(ctx context.Context, cs kubernetes.Interface, log *drainLog) error {
	pods, warnings, errs := a.podsToEvict(ctx, cs)
	if len(errs) > 0 {
		return joinErrors(errs)
	}
	for _, w := range warnings {
		log.printf("%s", "Warning: "+w)
	}
	if a.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, a.Timeout, errGlobalTimeout)
		defer cancel()
	}
	results := make(chan error, len(pods))
	for i := range pods {
		go func(pod corev1.Pod) { results <- a.evictOne(ctx, cs, pod, log) }(pods[i])
	}
	var failed []error
	for range pods {
		if err := <-results; err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	err := joinErrors(failed)
	if pending, _, _ := a.podsToEvict(context.WithoutCancel(ctx), cs); len(pending) > 0 {
		log.printf("%s", fmt.Sprintf("There are pending pods in node %q when an error occurred: %v", a.Node, err))
		for _, p := range pending {
			log.printf("%s", "pod/"+p.Name)
		}
	}
	return err
}

// evictOne is the goroutine kubectl's evictPods runs for one pod: evict,
// again after evictRetryDelay while the answer is 429, until it is
// accepted (then wait for the pod to go) or the drain's time is up.
func (a *DrainAction) evictOne(ctx context.Context, cs kubernetes.Interface, pod corev1.Pod, log *drainLog) error {
	for {
		log.printf("%s", fmt.Sprintf("evicting pod %s/%s", pod.Namespace, pod.Name))
		if ctx.Err() != nil {
			return fmt.Errorf("error when evicting pods/%q -n %q: %s", pod.Name, pod.Namespace, a.timeoutText(ctx))
		}
		ans, err := evictPod(ctx, cs, &pod)
		if err == nil {
			log.answered(ans.status)
			err = ans.err
		}
		switch {
		case err == nil:
			return a.waitGone(ctx, cs, pod, log)
		case apierrors.IsNotFound(err):
			return nil
		case apierrors.IsTooManyRequests(err):
			log.printf("%s", fmt.Sprintf("error when evicting pods/%q -n %q (will retry after %v): %v", pod.Name, pod.Namespace, evictRetryDelay, err))
			if sleep(ctx, evictRetryDelay) != nil && context.Cause(ctx) != errGlobalTimeout {
				return ctx.Err()
			}
		default:
			return fmt.Errorf("error when evicting pods/%q -n %q: %v", pod.Name, pod.Namespace, err)
		}
		if fresh, err := cs.CoreV1().Pods(pod.Namespace).Get(context.WithoutCancel(ctx), pod.Name, metav1.GetOptions{}); err == nil {
			pod = *fresh
		}
	}
}

// timeoutText is kubectl's words for the end of the drain's time.
func (a *DrainAction) timeoutText(ctx context.Context) string {
	if context.Cause(ctx) == errGlobalTimeout {
		return fmt.Sprintf("global timeout reached: %v", a.Timeout)
	}
	return ctx.Err().Error()
}

// waitGone polls every deletePollInterval until the pod is gone (or
// another pod of its name, of another UID, is there), as kubectl's
// waitForDelete does, and prints "pod/NAME evicted".
func (a *DrainAction) waitGone(ctx context.Context, cs kubernetes.Interface, pod corev1.Pod, log *drainLog) error {
	for {
		got, err := cs.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || (err == nil && got.UID != pod.UID):
			log.printf("%s", "pod/"+pod.Name+" evicted")
			return nil
		case err != nil && ctx.Err() == nil:
			log.printf("%s", "pod/"+pod.Name+" eviction failed")
			return fmt.Errorf("error when waiting for pod %q in namespace %q to terminate: %v", pod.Name, pod.Namespace, err)
		}
		if err := sleep(ctx, deletePollInterval); err != nil {
			return fmt.Errorf("error when waiting for pod %q in namespace %q to terminate: %v", pod.Name, pod.Namespace, ctx.Err())
		}
	}
}
