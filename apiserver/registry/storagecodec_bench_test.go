package registry_test

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// BenchmarkStorageCodec measures encoding a pod as stored and decoding
// it back, per media type, and the JSON serializer's decoding of the
// same JSON value (the way values were decoded before the storage
// codec's typed fast path) as the baseline of the JSON decode.
func BenchmarkStorageCodec(b *testing.B) {
	pod := benchStoredPod()
	for _, mt := range []string{registry.StorageMediaTypeJSON, registry.StorageMediaTypeProtobuf} {
		c, err := registry.StorageCodec(mt)
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := c.Encode(pod, &buf); err != nil {
			b.Fatal(err)
		}
		value := buf.Bytes()
		b.Run("encode/"+mt, func(b *testing.B) {
			for range b.N {
				var out bytes.Buffer
				if err := c.Encode(pod, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("decode/"+mt, func(b *testing.B) {
			for range b.N {
				if _, _, err := c.Decode(value, nil, &corev1.Pod{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		if mt == registry.StorageMediaTypeJSON {
			b.Run("decode/json-serializer", func(b *testing.B) {
				for range b.N {
					if _, _, err := registry.JSONSerializer.Decode(value, nil, &corev1.Pod{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// benchStoredPod is a pod as the API server stores it after admission:
// defaults, the token volume, tolerations.
func benchStoredPod() *corev1.Pod {
	p := newPod("bench-api-000000001")
	p.Namespace, p.UID = "default", "5f0e8a52-5a3b-4c8e-9b1e-0d6f3c2a9e11"
	p.Labels = map[string]string{"app": "bench", "tier": "web"}
	p.CreationTimestamp = metav1.Now().Rfc3339Copy()
	p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 80, Protocol: corev1.ProtocolTCP}}
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}
	p.Spec.Tolerations = []corev1.Toleration{{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}}
	p.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token"}}}}}}}
	return p
}
