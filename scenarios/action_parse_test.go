package scenarios

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubesim/kubesim/cluster"
)

// podManifest is a pod manifest and what it decodes to.
const podManifest = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"

func decodedPod() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "web", "namespace": "default"},
	}}
}

func TestParseApply(t *testing.T) {
	pod := []*unstructured.Unstructured{decodedPod()}
	indented := "  " + strings.ReplaceAll(strings.TrimSuffix(podManifest, "\n"), "\n", "\n  ") + "\n"
	checkParse(t, parseApply, []parseCase[actionRunner]{
		{name: "apply", key: "apply", src: "|\n" + indented, want: &ApplyAction{Objects: pod}},
		{name: "create", key: "create", src: "|\n" + indented, want: &ApplyAction{Create: true, Objects: pod}},
		{name: "not a string", key: "create", src: "{kind: Pod}", wantErr: `1:1: create: expected a string, got a mapping`},
		{name: "no objects", key: "apply", src: "'---'", wantErr: `1:1: manifest: no objects`},
		{name: "error inside the block", key: "apply", src: "|\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: web}\n  spec: {nodeName: 3}\n",
			wantErr: `5:10: manifest: spec.nodeName: expected string, got a number`},
	})
}

func TestParseApplyFile(t *testing.T) {
	l := testLoader(map[string]string{"pod.yaml": podManifest, "bad.yaml": "apiVersion: v1\nkind: Pod\n"})
	kind, _ := actionKindOf("applyFile")
	a, err := l.action(kind, mustNode(t, "pod.yaml"))
	if err != nil {
		t.Fatalf("parseApplyFile: %v", err)
	}
	if got, want := a.String(), "apply -f pod.yaml: Pod default/web"; got != want || a.Kind() != "applyFile" {
		t.Errorf("got %s %q, want applyFile %q", a.Kind(), got, want)
	}
	for src, want := range map[string]string{
		"missing.yaml": "t.yaml:1:1: applyFile: missing.yaml: no such file or directory",
		"bad.yaml":     "bad.yaml:1:1: manifest: Pod without metadata.name",
		"[pod.yaml]":   "t.yaml:1:1: applyFile: expected a string, got a list",
	} {
		if _, err := l.action(kind, mustNode(t, src)); err == nil || err.Error() != want {
			t.Errorf("applyFile %s: error %v, want %s", src, err, want)
		}
	}
}

func TestParseAddNode(t *testing.T) {
	big := cluster.DefaultNodeSpec("node-big")
	big.CPU = resource.MustParse("16")
	big.Labels = map[string]string{"size": "big"}
	tainted := big
	tainted.Taints = []corev1.Taint{{Key: "gpu", Value: "1", Effect: corev1.TaintEffectNoSchedule}}
	checkParse(t, parseAddNode, []parseCase[actionRunner]{
		{name: "defaults", key: "addNode", src: "{name: node-4}", want: &AddNodeAction{Node: cluster.DefaultNodeSpec("node-4")}},
		{name: "cpu and labels", key: "addNode", src: "{name: node-big, cpu: 16, labels: {size: big}}", want: &AddNodeAction{Node: big}},
		{name: "no name", key: "addNode", src: "{cpu: 4}", wantErr: `1:1: addNode: missing field "name"`},
		{name: "tainted", key: "addNode", src: "{name: node-big, cpu: 16, labels: {size: big}, taints: [{key: gpu, value: 1, effect: NoSchedule}]}", want: &AddNodeAction{Node: tainted}},
		{name: "taint without key", key: "addNode", src: "{name: n, taints: [{effect: NoSchedule}]}", wantErr: `1:20: addNode.taints[0]: missing field "key"`},
		{name: "taints not a list", key: "addNode", src: "{name: n, taints: {key: a}}", wantErr: `1:19: addNode.taints: expected a list, got a mapping`},
		{name: "bad memory", key: "addNode", src: "{name: n, memory: lots}", wantErr: `1:19: addNode.memory: "lots" is not a quantity (like 4, 500m, 8Gi)`},
	})
}

func TestParseNodeAction(t *testing.T) {
	checkParse(t, parseNodeAction, []parseCase[actionRunner]{
		{name: "removeNode", key: "removeNode", src: "node-1", want: &NodeAction{Verb: "removeNode", Node: "node-1"}},
		{name: "stopKubelet", key: "stopKubelet", src: "node-2", want: &NodeAction{Verb: "stopKubelet", Node: "node-2"}},
		{name: "startKubelet", key: "startKubelet", src: "node-2", want: &NodeAction{Verb: "startKubelet", Node: "node-2"}},
		{name: "bad name", key: "removeNode", src: "Node_1",
			wantErr: `1:1: removeNode: "Node_1" is not a valid object name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`},
		{name: "a list", key: "stopKubelet", src: "[node-1]", wantErr: `1:1: stopKubelet: expected a string, got a list`},
	})
}

func TestParseControl(t *testing.T) {
	var cases []parseCase[actionRunner]
	for _, key := range []string{"stopScheduler", "startScheduler", "restartAPIServer", "compactEtcd", "stopMetricsServer", "startMetricsServer"} {
		cases = append(cases,
			parseCase[actionRunner]{name: key, key: key, src: "true", want: &ControlAction{Verb: key}},
			parseCase[actionRunner]{name: key + " false", key: key, src: "false", wantErr: "1:1: " + key + ": must be true (leave the action out to not do it)"},
		)
	}
	checkParse(t, parseControl, cases)
}

func TestActionStrings(t *testing.T) {
	grace := int64(5)
	web := ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}
	for _, tc := range []struct {
		a          Action
		kind, want string
	}{
		{&ApplyAction{Objects: []*unstructured.Unstructured{decodedPod()}}, "apply", "apply Pod default/web"},
		{&ApplyAction{Create: true, Objects: []*unstructured.Unstructured{decodedPod(), decodedPod()}}, "create", "create Pod default/web, Pod default/web"},
		{&UpdateAction{Object: web, ResourceVersion: "stale"}, "update", "update Pod default/web (resourceVersion stale)"},
		{&DeleteAction{Object: web, GracePeriodSeconds: &grace, Wait: true}, "delete", "delete Pod default/web --grace-period=5 --wait"},
		{&PatchAction{Object: web, Subresource: "status", Type: "merge", Patch: "{}"}, "patch", "patch Pod default/web (status) --type=merge -p '{}'"},
		{&AddNodeAction{Node: cluster.DefaultNodeSpec("node-4")}, "addNode", "add node node-4 (cpu 4, memory 8Gi, pods 110)"},
		{&NodeAction{Verb: "stopKubelet", Node: "node-1"}, "stopKubelet", "stopKubelet node-1"},
		{&ControlAction{Verb: "compactEtcd"}, "compactEtcd", "compactEtcd"},
		{&HTTPAction{Method: "GET", Path: "/api", Mode: ModePoll, Proto: ProtoHTTP1, Count: 3, Interval: 2e9}, "http", "http GET /api (poll, HTTP/1.1, 3 requests 2s apart)"},
		{&HTTPAction{Method: "GET", Path: "/api", Mode: ModeWatch, Proto: ProtoHTTP2, Count: 2}, "http", "http GET /api (watch, HTTP/2, 2 events)"},
	} {
		if tc.a.Kind() != tc.kind || tc.a.String() != tc.want {
			t.Errorf("%T: Kind %q String %q, want %q %q", tc.a, tc.a.Kind(), tc.a.String(), tc.kind, tc.want)
		}
	}
}
