package apiserver_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// TestMetadataInformer: a metadata informer (client-go's metadata
// client, as the garbage collector and quota use upstream) lists with
// as=PartialObjectMetadataList and watches with as=PartialObjectMetadata,
// in protobuf and JSON: it sees a pod created after it synced, with its
// labels and ownerReferences and nothing of its spec.
func TestMetadataInformer(t *testing.T) {
	ts := startServer(t)
	for _, ct := range []string{runtime.ContentTypeProtobuf, runtime.ContentTypeJSON} {
		t.Run(ct, func(t *testing.T) {
			rc := ts.restConfig()
			rc.ContentType = ct
			mc, err := metadata.NewForConfig(rc)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			factory := metadatainformer.NewSharedInformerFactory(mc, 0)
			inf := factory.ForResource(corev1.SchemeGroupVersion.WithResource("pods")).Informer()
			factory.Start(ctx.Done())
			defer factory.Shutdown()
			defer cancel()
			if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				t.Fatal("metadata informer did not sync")
			}
			name := "meta-" + map[string]string{runtime.ContentTypeProtobuf: "pb", runtime.ContentTypeJSON: "json"}[ct]
			pod := testPod(name, map[string]string{"app": "web"})
			pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-1", UID: "u-1"}}
			mustCreatePod(t, ts.client, "default", pod)
			var got *metav1.PartialObjectMetadata
			waitFor(t, waitTimeout, "the pod in the metadata informer", func() bool {
				obj, ok, _ := inf.GetStore().GetByKey("default/" + name)
				got, _ = obj.(*metav1.PartialObjectMetadata)
				return ok && got != nil
			})
			if got.Labels["app"] != "web" || len(got.OwnerReferences) != 1 || got.OwnerReferences[0].Name != "web-1" {
				t.Errorf("watched object = %+v", got)
			}
		})
	}
}
