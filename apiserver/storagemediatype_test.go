package apiserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/registry"
	"github.com/kubesim/kubesim/internal/flow"
)

// TestProtobufStorage: with --storage-media-type protobuf a pod is stored
// with the k8s\x00 prefix and served as before; the evidence of its
// write shows the object as JSON and says it was stored as protobuf; a
// server storing JSON on the same etcd serves the pod too.
func TestProtobufStorage(t *testing.T) {
	ctx := context.Background()
	rec := flow.NewRecorder()
	sub := rec.Subscribe(1000)
	defer sub.Close()
	ts := startServer(t, func(c *apiserver.Config) {
		c.StorageMediaType, c.Recorder = apiserver.StorageMediaTypeProtobuf, rec
	})
	created := mustCreatePod(t, ts.client, "default", testPod("web", map[string]string{"app": "web"}))
	resp, err := ts.etcd.Get(ctx, "/registry/pods/default/web")
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("read the pod from etcd: %v", err)
	}
	if v := resp.Kvs[0].Value; !registry.IsProtobuf(v) {
		t.Fatalf("etcd holds %q..., want the k8s\\x00 prefix", v[:min(len(v), 16)])
	}
	var write *flow.Event
	waitFor(t, waitTimeout, "the evidence of the pod's create", func() bool {
		select {
		case ev := <-sub.Events():
			if ev.Etcd != nil && ev.Etcd.Key == "/registry/pods/default/web" && ev.Etcd.Op == "create" {
				write = &ev
			}
		default:
		}
		return write != nil
	})
	var shown corev1.Pod
	if err := json.Unmarshal([]byte(write.Etcd.Value), &shown); err != nil || shown.UID != created.UID {
		t.Errorf("evidence value is not the pod as JSON (uid %s, err %v): %.80q", shown.UID, err, write.Etcd.Value)
	}
	if !strings.Contains(write.Summary, "stored as protobuf") {
		t.Errorf("evidence summary %q does not say the value was stored as protobuf", write.Summary)
	}
	asJSON := startServerOn(t, ts)
	got, err := asJSON.client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || got.UID != created.UID || got.Labels["app"] != "web" {
		t.Fatalf("a JSON-storing server reads the protobuf pod: %v, %v", got, err)
	}
}
