package admission

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// The projected token volume's figures, as upstream's.
const (
	// TokenExpirationSeconds is what the volume's token projection asks
	// for: 3607 seconds, upstream's WarnOnlyBoundTokenExpirationSeconds,
	// an hour and 7 seconds. kube-apiserver recognises the figure: with
	// --service-account-extend-token-expiration (on by default) a token
	// asked for with it and bound to a pod gets a year instead, and its
	// use after the hour is noted. kubesim's API server issues the 3607
	// seconds asked for.
	TokenExpirationSeconds int64 = 3607
	// RootCAConfigMapName is the ConfigMap the volume takes ca.crt from,
	// which the root-ca-cert-publisher keeps in every namespace.
	RootCAConfigMapName = "kube-root-ca.crt"
)

// TokenVolumeSource is the projected volume the plugin adds: the token
// (path "token", 3607 seconds), ca.crt from the ConfigMap
// kube-root-ca.crt and the pod's namespace (path "namespace") from the
// downward API, mode 0644. Each call returns a fresh value.
func TokenVolumeSource() *corev1.ProjectedVolumeSource {
	mode, seconds := corev1.ProjectedVolumeSourceDefaultMode, TokenExpirationSeconds
	return &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: &seconds}},
			{ConfigMap: &corev1.ConfigMapProjection{
				LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMapName},
				Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}},
			}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{
				Path:     "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"},
			}}}},
		},
	}
}

// mountServiceAccountToken mounts the token volume read-only at
// DefaultAPITokenMountPath in each init container and container that has
// nothing mounted there, and adds the volume if one of them needed it. A
// volume already named kube-api-access-* is used as it is. It returns
// the fields it set.
func (s *ServiceAccount) mountServiceAccountToken(pod *corev1.Pod) []string {
	volume, exists := "", false
	for _, v := range pod.Spec.Volumes {
		if strings.HasPrefix(v.Name, ServiceAccountVolumeName+"-") {
			volume, exists = v.Name, true
			break
		}
	}
	if volume == "" {
		volume = s.generateName(ServiceAccountVolumeName + "-")
	}
	mount := corev1.VolumeMount{Name: volume, ReadOnly: true, MountPath: DefaultAPITokenMountPath}
	var fields []string
	for _, list := range []struct {
		path       string
		containers []corev1.Container
	}{{"spec.initContainers", pod.Spec.InitContainers}, {"spec.containers", pod.Spec.Containers}} {
		for i := range list.containers {
			c := &list.containers[i]
			if mountsAt(c, DefaultAPITokenMountPath) {
				continue
			}
			c.VolumeMounts = append(c.VolumeMounts, mount)
			fields = append(fields, fmt.Sprintf("%s[%d].volumeMounts[+]=%s at %s (read-only)", list.path, i, volume, DefaultAPITokenMountPath))
		}
	}
	if !exists && len(fields) > 0 {
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: volume,
			VolumeSource: corev1.VolumeSource{Projected: TokenVolumeSource()}})
		fields = append([]string{fmt.Sprintf("spec.volumes[+]=%s (projected: token %ds, %s ca.crt, namespace)",
			volume, TokenExpirationSeconds, RootCAConfigMapName)}, fields...)
	}
	return fields
}

func mountsAt(c *corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath == path {
			return true
		}
	}
	return false
}
