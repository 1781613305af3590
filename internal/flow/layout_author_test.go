package flow

import (
	"fmt"
	"strings"
	"testing"
)

// TestLayoutAuthorAndBetween: an etcd write's evidence says which request
// it was made for and which keys took the revisions since the key's
// previous write, in both forms and both languages.
func TestLayoutAuthorAndBetween(t *testing.T) {
	w := &EtcdWrite{Op: "update", Key: "/registry/pods/default/web", Revision: 47, PrevRevision: 36, Value: `{}`,
		By: &WriteAuthor{User: "system:kube-scheduler", Method: "POST", URI: "/api/v1/namespaces/default/pods/web/binding"},
		Between: []OtherWrite{
			{Revision: 37, Op: "create", Key: "/registry/events/default/web.1", User: "system:kube-scheduler"},
			{Revision: 38, Op: "update", Key: "/registry/leases/kube-node-lease/node-1", User: "system:node:node-1"},
		},
		BetweenMore: 7, BetweenElsewhere: 1}
	tests := []struct {
		lang string
		form Form
		want []string
	}{
		{"en", Brief, []string{
			"written for POST /api/v1/namespaces/default/pods/web/binding, sent by system:kube-scheduler (the scheduler)",
			"revisions 37 to 46 (10) went to other keys:",
			"  37 create /registry/events/default/web.1  by system:kube-scheduler (the scheduler)",
			"  38 update /registry/leases/kube-node-lease/node-1  by system:node:node-1 (the kubelet of node-1)",
			"  … and 7 more",
			"  1 not written through this API server",
		}},
		{"zh", Full, []string{
			"为请求 POST /api/v1/namespaces/default/pods/web/binding 而写，发送者 system:kube-scheduler （调度器）",
			"revision 37 到 46（10 个）属于其他键：",
		}},
	}
	for _, tt := range tests {
		got := strings.Join(texts(Layout{Lang: tt.lang, Form: tt.form}.Event(Event{Etcd: w}, Context{})), "\n")
		for _, want := range tt.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s %v: no %q in\n%s", tt.lang, tt.form, want, got)
			}
		}
	}
	// A one-line revision names its request too.
	if got := texts(Layout{}.Revision(w, Prior{})); !strings.Contains(got[0], "for POST /api/v1/namespaces/default/pods/web/binding by system:kube-scheduler") {
		t.Errorf("Revision = %q, want the request named", got)
	}
	// Without the evidence of what came between, nothing is said of it.
	bare := *w
	bare.Between, bare.BetweenMore, bare.BetweenElsewhere = nil, 0, 0
	if got := strings.Join(texts(Layout{}.Event(Event{Etcd: &bare}, Context{})), "\n"); strings.Contains(got, "other keys") {
		t.Errorf("a write without between evidence:\n%s", got)
	}
}

func TestLayoutTie(t *testing.T) {
	d := &SchedulingDecision{Attempt: 1, Chosen: "node-2", Tied: []string{"node-1", "node-2", "node-3"}, Nodes: []NodeVerdict{
		{Node: "node-1", Feasible: true, Total: 469}, {Node: "node-2", Feasible: true, Total: 469}, {Node: "node-3", Feasible: true, Total: 469}}}
	for _, form := range []Form{Brief, Full} {
		got := strings.Join(texts(Layout{Form: form}.Event(Event{Scheduling: d}, Context{})), "\n")
		if want := "a tie: 3 nodes (node-1, node-2, node-3) share the highest total; kube-scheduler picks one of them at random, here node-2"; !strings.Contains(got, want) {
			t.Errorf("form %v: no %q in\n%s", form, want, got)
		}
	}
}

// TestSplitProtobufFrame: a protobuf watch frame's bytes are named: the
// length prefix, then the WatchEvent with its type and its object in
// the k8s\x00 envelope.
func TestSplitProtobufFrame(t *testing.T) {
	unknown := pbField(1, append(pbField(1, []byte("v1")), pbField(2, []byte("Pod"))...)) // typeMeta
	unknown = append(unknown, pbField(2, []byte{0x0a, 0x00})...)                          // raw
	raw := append([]byte("k8s\x00"), unknown...)
	event := append(pbField(1, []byte("ADDED")), pbField(2, pbField(1, raw))...)
	frame := append([]byte{0, 0, 0, byte(len(event))}, event...)
	w := &WatchDelivery{Proto: "HTTP/2.0", ContentType: "application/vnd.kubernetes.protobuf;stream=watch", Frame: frame}
	want := fmt.Sprintf(`a 4-byte length prefix 00 00 00 %02x (%d bytes follow), then a protobuf WatchEvent: type ADDED, object %d bytes (the "k8s\x00" envelope of a v1 Pod)`,
		len(event), len(event), len(raw))
	if got := (Layout{}).frameSummary(w); !strings.HasSuffix(got, want) {
		t.Errorf("frameSummary = %q, want it to end %q", got, want)
	}
	if _, ok := splitFrame("application/vnd.kubernetes.protobuf;stream=watch", frame[:len(frame)-1]); ok {
		t.Error("a frame shorter than its prefix says was read")
	}
	if _, ok := splitFrame("application/json", frame); ok {
		t.Error("a JSON frame was read as protobuf")
	}
}

// pbField encodes a length-delimited protobuf field (short values only).
func pbField(n int, b []byte) []byte { return append([]byte{byte(n<<3 | 2), byte(len(b))}, b...) }
