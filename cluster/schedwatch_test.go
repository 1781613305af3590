package cluster_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kubesim/kubesim/internal/flow"
)

// TestSchedulerWatchesAsUpstream: the scheduler learns of a new pod (stage
// 3) on the one pod watch kube-scheduler keeps: all namespaces, every pod
// but finished ones (fieldSelector status.phase!=Succeeded,
// status.phase!=Failed); it tells pending pods from bound ones itself.
func TestSchedulerWatchesAsUpstream(t *testing.T) {
	t.Parallel()
	_, admin, sub := stagedCluster(t, 1, nil)
	pod := createPod(t, admin, "watched")
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Stage != flow.StageSchedulerNotified || ev.Object.UID != pod.UID {
				continue
			}
			u, err := url.Parse(ev.Watch.URI)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			if u.Path != "/api/v1/pods" || q.Get("watch") != "true" || q.Get("fieldSelector") != "status.phase!=Succeeded,status.phase!=Failed" {
				t.Errorf("the scheduler's watch is %s, want /api/v1/pods?watch=true with fieldSelector status.phase!=Succeeded,status.phase!=Failed", ev.Watch.URI)
			}
			if ev.Watch.User != "system:kube-scheduler" || ev.Watch.Type != "ADDED" {
				t.Errorf("stage 3: %s to %s, want ADDED to system:kube-scheduler", ev.Watch.Type, ev.Watch.User)
			}
			// client-go asks for protobuf: the evidence names the
			// frame's parts (not an HTTP/2 frame header).
			brief := fmt.Sprint(flow.Layout{}.Event(ev, flow.Context{}))
			for _, want := range []string{"a 4-byte length prefix", "then a protobuf WatchEvent: type ADDED", `envelope of a v1 Pod`, "9-byte header"} {
				if !strings.Contains(brief, want) {
					t.Errorf("stage 3 evidence lacks %q:\n%s", want, brief)
				}
			}
			return
		case <-deadline:
			t.Fatal("no stage 3 for the pod")
		}
	}
}

// TestKubeletWatchesInProtobuf: the kubelet learns of its pod (stage 6)
// on a watch answered in protobuf, as upstream's kubelet asks for it
// (--kube-api-content-type application/vnd.kubernetes.protobuf, Accept
// protobuf then JSON): the evidence is a length-prefixed protobuf frame,
// written to system:node:<node>.
func TestKubeletWatchesInProtobuf(t *testing.T) {
	t.Parallel()
	_, admin, sub := stagedCluster(t, 1, nil)
	pod := createPod(t, admin, "kubelet-watched")
	deadline := time.After(waitTimeout)
	for {
		select {
		case ev := <-sub.Events():
			if ev.Stage != flow.StageKubeletNotified || ev.Object.UID != pod.UID || ev.Watch == nil {
				continue
			}
			if !strings.HasPrefix(ev.Watch.User, "system:node:") {
				t.Errorf("stage 6 watch written to %s, want system:node:<node>", ev.Watch.User)
			}
			if want := "application/vnd.kubernetes.protobuf;stream=watch"; ev.Watch.ContentType != want {
				t.Errorf("stage 6 watch Content-Type = %q, want %q", ev.Watch.ContentType, want)
			}
			brief := fmt.Sprint(flow.Layout{}.Event(ev, flow.Context{}))
			for _, want := range []string{"a 4-byte length prefix", "then a protobuf WatchEvent", `envelope of a v1 Pod`} {
				if !strings.Contains(brief, want) {
					t.Errorf("stage 6 evidence lacks %q:\n%s", want, brief)
				}
			}
			return
		case <-deadline:
			t.Fatal("no stage 6 with a watch frame for the pod")
		}
	}
}
