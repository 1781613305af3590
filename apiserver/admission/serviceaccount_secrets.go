package admission

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// validateMirrorPod rejects a mirror pod that names a service account,
// references a secret anywhere, or projects a service account token.
func validateMirrorPod(a *Attributes, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName != "" {
		return newForbidden(a, errors.New("a mirror pod may not reference service accounts"))
	}
	if referencesSecrets(pod) {
		return newForbidden(a, errors.New("a mirror pod may not reference secrets"))
	}
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, src := range v.Projected.Sources {
			if src.ServiceAccountToken != nil {
				return newForbidden(a, errors.New("a mirror pod may not use ServiceAccountToken volume projections"))
			}
		}
	}
	return nil
}

// referencesSecrets reports whether the pod names a secret: an image
// pull secret, one in any container's env or envFrom, or one of a volume
// (upstream's VisitPodSecretNames).
func referencesSecrets(pod *corev1.Pod) bool {
	for _, r := range pod.Spec.ImagePullSecrets {
		if r.Name != "" {
			return true
		}
	}
	for _, c := range pod.Spec.InitContainers {
		if containerReferencesSecrets(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, c := range pod.Spec.Containers {
		if containerReferencesSecrets(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, c := range pod.Spec.EphemeralContainers {
		if containerReferencesSecrets(c.Env, c.EnvFrom) {
			return true
		}
	}
	for _, v := range pod.Spec.Volumes {
		if volumeSecretName(v.VolumeSource) != "" {
			return true
		}
	}
	return false
}

// containerReferencesSecrets reports whether env or envFrom names a
// secret.
func containerReferencesSecrets(env []corev1.EnvVar, envFrom []corev1.EnvFromSource) bool {
	for _, e := range envFrom {
		if e.SecretRef != nil && e.SecretRef.Name != "" {
			return true
		}
	}
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name != "" {
			return true
		}
	}
	return false
}

// volumeSecretName is the secret a volume source names ("" if none; a
// projected volume: its first secret).
func volumeSecretName(v corev1.VolumeSource) string {
	ref := func(r *corev1.LocalObjectReference) string {
		if r == nil {
			return ""
		}
		return r.Name
	}
	switch {
	case v.AzureFile != nil:
		return v.AzureFile.SecretName
	case v.CephFS != nil:
		return ref(v.CephFS.SecretRef)
	case v.Cinder != nil:
		return ref(v.Cinder.SecretRef)
	case v.FlexVolume != nil:
		return ref(v.FlexVolume.SecretRef)
	case v.Projected != nil:
		for _, s := range v.Projected.Sources {
			if s.Secret != nil && s.Secret.Name != "" {
				return s.Secret.Name
			}
		}
	case v.RBD != nil:
		return ref(v.RBD.SecretRef)
	case v.Secret != nil:
		return v.Secret.SecretName
	case v.ScaleIO != nil:
		return ref(v.ScaleIO.SecretRef)
	case v.ISCSI != nil:
		return ref(v.ISCSI.SecretRef)
	case v.StorageOS != nil:
		return ref(v.StorageOS.SecretRef)
	case v.CSI != nil:
		return ref(v.CSI.NodePublishSecretRef)
	}
	return ""
}

func mountableSecrets(sa *corev1.ServiceAccount) sets.Set[string] {
	out := sets.New[string]()
	for _, s := range sa.Secrets {
		out.Insert(s.Name)
	}
	return out
}

// limitSecretReferences rejects, with upstream's messages, a pod whose
// secret volumes, init containers' and containers' env and envFrom, or
// image pull secrets name a secret the account does not list.
func limitSecretReferences(sa *corev1.ServiceAccount, pod *corev1.Pod) error {
	allowed := mountableSecrets(sa)
	for _, v := range pod.Spec.Volumes {
		if v.Secret != nil && !allowed.Has(v.Secret.SecretName) {
			return fmt.Errorf("volume with secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", v.Secret.SecretName, sa.Name)
		}
	}
	for _, list := range []struct {
		what       string
		containers []corev1.Container
	}{{"init container", pod.Spec.InitContainers}, {"container", pod.Spec.Containers}} {
		for _, c := range list.containers {
			if err := limitContainerSecrets(list.what, c.Name, c.Env, c.EnvFrom, allowed, sa.Name); err != nil {
				return err
			}
		}
	}
	pull := sets.New[string]()
	for _, s := range sa.ImagePullSecrets {
		pull.Insert(s.Name)
	}
	for i, r := range pod.Spec.ImagePullSecrets {
		if !pull.Has(r.Name) {
			return fmt.Errorf(`imagePullSecrets[%d].name="%s" is not allowed because service account %s does not reference that imagePullSecret`, i, r.Name, sa.Name)
		}
	}
	return nil
}

// limitEphemeralSecretReferences is limitSecretReferences for the
// ephemeral containers' env and envFrom.
func limitEphemeralSecretReferences(sa *corev1.ServiceAccount, pod *corev1.Pod) error {
	allowed := mountableSecrets(sa)
	for _, c := range pod.Spec.EphemeralContainers {
		if err := limitContainerSecrets("ephemeral container", c.Name, c.Env, c.EnvFrom, allowed, sa.Name); err != nil {
			return err
		}
	}
	return nil
}

// limitContainerSecrets checks one container: env first, then envFrom,
// as upstream.
func limitContainerSecrets(what, name string, env []corev1.EnvVar, envFrom []corev1.EnvFromSource, allowed sets.Set[string], account string) error {
	for _, e := range env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && !allowed.Has(e.ValueFrom.SecretKeyRef.Name) {
			return fmt.Errorf("%s %s with envVar %s referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, name, e.Name, e.ValueFrom.SecretKeyRef.Name, account)
		}
	}
	for _, e := range envFrom {
		if e.SecretRef != nil && !allowed.Has(e.SecretRef.Name) {
			return fmt.Errorf("%s %s with envFrom referencing secret.secretName=\"%s\" is not allowed because service account %s does not reference that secret", what, name, e.SecretRef.Name, account)
		}
	}
	return nil
}
