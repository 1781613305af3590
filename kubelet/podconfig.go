package kubelet

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kubesim/kubesim/internal/flow"
)

// This file is what the kubelet reads from ConfigMaps and Secrets before
// it creates a container: the container's environment (env valueFrom
// configMapKeyRef and secretKeyRef, envFrom), as upstream's
// makeEnvironmentVariables. A ConfigMap, Secret or key that is missing
// and not optional fails the container's creation with
// CreateContainerConfigError: a Failed event "Error: <why>", the
// container waiting with that reason and message, and a new attempt at
// the pod worker's next sync (upstream's pod worker back-off, 10 s,
// divided by the speed), which finds what was created meanwhile.

// ReasonCreateContainerConfigError is the waiting reason of a container
// whose configuration (its environment) could not be made.
const ReasonCreateContainerConfigError = "CreateContainerConfigError"

// configRetry is how long the pod worker waits before it syncs a pod
// again after an error (upstream's backOffPeriod, 10 s).
const configRetry = 10 * time.Second

// minConfigRetry bounds the retry below in real time, so that at speed 0
// a missing ConfigMap is not asked for in a busy loop.
const minConfigRetry = 200 * time.Millisecond

// objectLookup reads the ConfigMaps and Secrets a pod uses. A missing
// object is an apierrors NotFound error for the groupResource "configmap"
// or "secret", as the kubelet's managers report it (`configmap "x" not
// found`).
type objectLookup interface {
	configMap(namespace, name string) (*corev1.ConfigMap, error)
	secret(namespace, name string) (*corev1.Secret, error)
}

// apiObjects reads them with the kubelet's identity: a GET, which the
// Node authorizer allows for the objects of the node's pods.
type apiObjects struct{ client kubernetes.Interface }

func (a apiObjects) configMap(namespace, name string) (*corev1.ConfigMap, error) {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	cm, err := a.client.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(corev1.Resource("configmap"), name)
	}
	return cm, err
}

func (a apiObjects) secret(namespace, name string) (*corev1.Secret, error) {
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	s, err := a.client.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, apierrors.NewNotFound(corev1.Resource("secret"), name)
	}
	return s, err
}

// envResolver resolves one container's environment, reading each object
// once.
type envResolver struct {
	objects    objectLookup
	namespace  string
	configMaps map[string]*corev1.ConfigMap
	secrets    map[string]*corev1.Secret
}

func (r *envResolver) configMap(name string) (*corev1.ConfigMap, error) {
	if cm, ok := r.configMaps[name]; ok {
		return cm, nil
	}
	cm, err := r.objects.configMap(r.namespace, name)
	if err == nil {
		r.configMaps[name] = cm
	}
	return cm, err
}

func (r *envResolver) secret(name string) (*corev1.Secret, error) {
	if s, ok := r.secrets[name]; ok {
		return s, nil
	}
	s, err := r.objects.secret(r.namespace, name)
	if err == nil {
		r.secrets[name] = s
	}
	return s, err
}

// configEnv is what a container's environment takes from ConfigMaps and
// Secrets.
type configEnv struct {
	from map[string]string // envFrom's variables, with their prefixes
	keys map[string]string // env entries' values from keys, by name
}

// resolveEnv returns the values c's environment takes from ConfigMaps
// and Secrets (envFrom, with its prefix, and env valueFrom), or the
// error the kubelet reports, in upstream's order and words.
func resolveEnv(objects objectLookup, namespace string, c *corev1.Container) (configEnv, error) {
	r := &envResolver{objects: objects, namespace: namespace, configMaps: map[string]*corev1.ConfigMap{}, secrets: map[string]*corev1.Secret{}}
	out := configEnv{from: map[string]string{}, keys: map[string]string{}}
	for _, from := range c.EnvFrom {
		if err := r.envFrom(from, out.from); err != nil {
			return configEnv{}, err
		}
	}
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			continue
		}
		v, ok, err := r.valueFrom(e.ValueFrom)
		if err != nil {
			return configEnv{}, err
		}
		if ok {
			out.keys[e.Name] = v
		}
	}
	return out, nil
}

func optional(b *bool) bool { return b != nil && *b }

func (r *envResolver) envFrom(from corev1.EnvFromSource, out map[string]string) error {
	switch {
	case from.ConfigMapRef != nil:
		cm, err := r.configMap(from.ConfigMapRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(from.ConfigMapRef.Optional) {
				return nil
			}
			return err
		}
		for k, v := range cm.Data {
			out[from.Prefix+k] = v
		}
	case from.SecretRef != nil:
		s, err := r.secret(from.SecretRef.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(from.SecretRef.Optional) {
				return nil
			}
			return err
		}
		for k, v := range s.Data {
			out[from.Prefix+k] = string(v)
		}
	}
	return nil
}

// valueFrom is an env entry's value from a ConfigMap or Secret key; ok
// false when it has none (an optional one missing, or a field reference,
// which kubesim does not resolve).
func (r *envResolver) valueFrom(src *corev1.EnvVarSource) (string, bool, error) {
	switch {
	case src.ConfigMapKeyRef != nil:
		ref := src.ConfigMapKeyRef
		cm, err := r.configMap(ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, err
		}
		v, ok := cm.Data[ref.Key]
		if !ok && !optional(ref.Optional) {
			return "", false, fmt.Errorf("couldn't find key %v in ConfigMap %v/%v", ref.Key, r.namespace, ref.Name)
		}
		return v, ok, nil
	case src.SecretKeyRef != nil:
		ref := src.SecretKeyRef
		s, err := r.secret(ref.Name)
		if err != nil {
			if apierrors.IsNotFound(err) && optional(ref.Optional) {
				return "", false, nil
			}
			return "", false, err
		}
		v, ok := s.Data[ref.Key]
		if !ok && !optional(ref.Optional) {
			return "", false, fmt.Errorf("couldn't find key %v in Secret %v/%v", ref.Key, r.namespace, ref.Name)
		}
		return string(v), ok, nil
	}
	return "", false, nil
}

// checkConfig makes c's configuration before it is created: without
// objects to read (tests) there is nothing to check. On an error c waits
// with CreateContainerConfigError until the retry.
func (m *podMachine) checkConfig(c *container, now time.Time) ([]output, bool) {
	if m.rt.objects == nil {
		return nil, false
	}
	env, err := resolveEnv(m.rt.objects, m.pod.Namespace, &c.spec)
	if err == nil {
		c.configEnv, c.configRetryAt = env, time.Time{}
		return nil, false
	}
	msg := errText(err)
	c.waiting = &corev1.ContainerStateWaiting{Reason: ReasonCreateContainerConfigError, Message: msg}
	c.configRetryAt = now.Add(max(m.scale.backOff(configRetry), minConfigRetry))
	return []output{{c: c, eventType: corev1.EventTypeWarning, reason: ReasonFailed, message: msgError(msg),
		action:  &flow.RuntimeAction{Action: ActionCreate, Container: c.spec.Name, Image: c.spec.Image, Result: ReasonCreateContainerConfigError},
		summary: fmt.Sprintf("container %s not created: %s", c.spec.Name, msg), start: c.cur == nil}}, true
}

// envWithConfig is containerEnv with the values c's environment took
// from ConfigMaps and Secrets: envFrom's first, then env in order.
func envWithConfig(c *container) map[string]string {
	env := map[string]string{"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root"}
	for k, v := range c.configEnv.from {
		env[k] = v
	}
	for _, e := range c.spec.Env {
		if e.ValueFrom == nil {
			env[e.Name] = expandRefs(e.Value, env)
		} else if v, ok := c.configEnv.keys[e.Name]; ok {
			env[e.Name] = v
		}
	}
	return env
}
