package kubelet

import (
	"context"
	"crypto/md5" //nolint:gosec // the kubelet's config hash is an md5 too
	"encoding/hex"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
)

// This file is the kubelet's static pods, as a kubeadm node has them in
// /etc/kubernetes/manifests: the kubelet runs them without the API
// server, and makes for each a mirror pod in the API so that kubectl
// sees it. Here the kubelet is given the pods (Config.StaticPods) and
// does what the API shows of upstream's: it names each <name>-<node>,
// binds it to itself, annotates it (kubernetes.io/config.hash,
// config.seen, config.source=file, and on the mirror config.mirror),
// tolerates every NoExecute taint, and creates the mirror pod owned by
// its Node; its pod worker then runs it as any pod and reports its
// status on the mirror. A mirror pod that is deleted is made again. A
// static pod's containers are ready while its Healthy function says so:
// kubesim's stand-in for the probes of the component the pod is.
//
// Differences: upstream runs the static pod itself and keeps its
// containers when its mirror pod is deleted; here the containers belong
// to the mirror pod, and a new mirror pod starts new ones.

// StaticPod is a pod the kubelet runs from its manifest directory.
type StaticPod struct {
	// Pod is the manifest: name, namespace (kube-system if empty),
	// labels and spec.
	Pod *corev1.Pod
	// Healthy tells whether the component the pod stands for is up; nil
	// means always. Its containers are ready only while it is.
	Healthy func() bool
}

// Annotations the kubelet sets on static and mirror pods.
const (
	annotationConfigHash   = "kubernetes.io/config.hash"
	annotationConfigSeen   = "kubernetes.io/config.seen"
	annotationConfigSource = "kubernetes.io/config.source"
)

// staticProbePeriod is how often the health of static pods is looked at
// (a probe's default periodSeconds, divided by the speed; at least
// minConfigRetry).
const staticProbePeriod = 10 * time.Second

// staticPod is the kubelet's copy of one static pod, as it runs it.
type staticPod struct {
	pod     *corev1.Pod
	healthy func() bool
}

// staticPods makes the kubelet's copies of the manifests, seen at now.
func (k *Kubelet) staticPods(now time.Time) []staticPod {
	var out []staticPod
	for _, sp := range k.cfg.StaticPods {
		p := sp.Pod.DeepCopy()
		if p.Namespace == "" {
			p.Namespace = metav1.NamespaceSystem
		}
		p.Name = p.Name + "-" + k.cfg.Node.Name
		p.Spec.NodeName = k.cfg.Node.Name
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute})
		hash := configHash(p)
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[annotationConfigHash] = hash
		p.Annotations[annotationConfigSeen] = now.UTC().Format(time.RFC3339Nano)
		p.Annotations[annotationConfigSource] = "file"
		p.Annotations[corev1.MirrorPodAnnotationKey] = hash
		out = append(out, staticPod{pod: p, healthy: sp.Healthy})
	}
	return out
}

// configHash is the static pod's hash, an md5 of its manifest as the
// kubelet's file source hashes it.
func configHash(p *corev1.Pod) string {
	data, _ := json.Marshal(p)
	sum := md5.Sum(data) //nolint:gosec
	return hex.EncodeToString(sum[:])
}

// isMirrorPod reports whether p is a mirror pod.
func isMirrorPod(p *corev1.Pod) bool {
	_, ok := p.Annotations[corev1.MirrorPodAnnotationKey]
	return ok
}

// staticHealth is the Healthy function of the static pod whose mirror p
// is, or nil.
func (k *Kubelet) staticHealth(p *corev1.Pod) func() bool {
	if !isMirrorPod(p) {
		return nil
	}
	for _, sp := range k.cfg.StaticPods {
		ns := sp.Pod.Namespace
		if ns == "" {
			ns = metav1.NamespaceSystem
		}
		if p.Namespace == ns && p.Name == sp.Pod.Name+"-"+k.cfg.Node.Name {
			return sp.Healthy
		}
	}
	return nil
}

// mirrorLoop keeps a mirror pod for each static pod, and tells the
// workers of mirror pods when a component's health changes, until ctx
// is done. A mirror pod that is gone, or being deleted, is deleted (with
// no grace period) and made again at the next look.
func (k *Kubelet) mirrorLoop(ctx context.Context) {
	if len(k.cfg.StaticPods) == 0 {
		return
	}
	pods := k.staticPods(k.clock.Now())
	period := max(k.scale.backOff(staticProbePeriod), minConfigRetry)
	health := map[string]bool{}
	for {
		for _, sp := range pods {
			k.syncMirror(ctx, sp)
			if sp.healthy != nil {
				h := sp.healthy()
				if old, seen := health[sp.pod.Name]; seen && old != h {
					k.notifyPod(sp.pod.Namespace, sp.pod.Name)
				}
				health[sp.pod.Name] = h
			}
		}
		t := k.clock.NewTimer(period)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		case <-k.mirrorKick:
			t.Stop()
		}
	}
}

// syncMirror makes sure sp has a mirror pod that is not being deleted.
func (k *Kubelet) syncMirror(ctx context.Context, sp staticPod) {
	pods := k.cfg.Client.CoreV1().Pods(sp.pod.Namespace)
	cur, err := pods.Get(ctx, sp.pod.Name, metav1.GetOptions{})
	switch {
	case err == nil && cur.DeletionTimestamp == nil:
		return
	case err == nil:
		zero := int64(0)
		err = pods.Delete(ctx, cur.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: metav1.NewUIDPreconditions(string(cur.UID))})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return
		}
	case !apierrors.IsNotFound(err):
		return
	}
	uid, _ := k.nodeUID.Load().(types.UID)
	mirror := sp.pod.DeepCopy()
	controller := true
	mirror.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: k.cfg.Node.Name, UID: uid, Controller: &controller}}
	if _, err := pods.Create(ctx, mirror, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) && ctx.Err() == nil {
		klog.FromContext(ctx).Error(err, "Failed creating a mirror pod", "pod", klog.KObj(mirror))
	}
}

// notifyPod wakes the worker of pod namespace/name, if any.
func (k *Kubelet) notifyPod(namespace, name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, w := range k.workers {
		if p := w.current(); p != nil && p.Namespace == namespace && p.Name == name {
			w.notify()
		}
	}
}

// current is the worker's latest version of its pod.
func (w *podWorker) current() *corev1.Pod {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.latest
}

// kickMirrors makes the mirror loop look again at once (a mirror pod was
// deleted). It does not block.
func (k *Kubelet) kickMirrors() {
	select {
	case k.mirrorKick <- struct{}{}:
	default:
	}
}
