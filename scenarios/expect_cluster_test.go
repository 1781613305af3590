package scenarios

import (
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

func TestParseAbsent(t *testing.T) {
	checkParse(t, parseAbsent, []parseCase[Expectation]{
		{name: "pod", key: "absent", src: "{kind: Pod, name: web}", want: &AbsentExpectation{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}}},
		{name: "node", key: "absent", src: "{kind: Node, name: node-3}", want: &AbsentExpectation{Object: ObjectSpec{Kind: "Node", Name: "node-3"}}},
		{name: "no kind", key: "absent", src: "{name: web}", wantErr: `1:1: absent: missing field "kind"`},
	})
}

func TestAbsentProbe(t *testing.T) {
	web := &AbsentExpectation{Object: ObjectSpec{Kind: "Pod", Name: "web", Namespace: "default"}}
	for _, tc := range []struct {
		name    string
		objs    []runtime.Object
		wantOK  bool
		wantGot string
	}{
		{"gone", nil, true, ""},
		{"there", []runtime.Object{mustUnstructured(t, webPod)}, false, "it exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := probePlayer(t)
			p.dynamicClients = map[string]dynamic.Interface{expectUser: dynamicfake.NewSimpleDynamicClient(scheme.Scheme, tc.objs...)}
			got, ok, _ := web.probe(t.Context(), p)
			if ok != tc.wantOK || got != tc.wantGot {
				t.Errorf("probe = %q, %v; want %q, %v", got, ok, tc.wantGot, tc.wantOK)
			}
		})
	}
}

func TestParseNodeReady(t *testing.T) {
	checkParse(t, parseNodeReady, []parseCase[Expectation]{
		{name: "node", key: "nodeReady", src: "node-4", want: &NodeReadyExpectation{Node: "node-4"}},
		{name: "a mapping", key: "nodeReady", src: "{name: node-4}", wantErr: `1:1: nodeReady: expected a string, got a mapping`},
	})
}

func TestNodeReadyProbe(t *testing.T) {
	node := func(conds ...corev1.NodeCondition) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-4"}, Status: corev1.NodeStatus{Conditions: conds}}
	}
	e := &NodeReadyExpectation{Node: "node-4"}
	checkProbes(t, []probeCase{
		{name: "ready", e: e, objs: []runtime.Object{node(corev1.NodeCondition{Type: "MemoryPressure", Status: "False"}, corev1.NodeCondition{Type: "Ready", Status: "True"})}, wantOK: true},
		{name: "not ready", e: e, objs: []runtime.Object{node(corev1.NodeCondition{Type: "Ready", Status: "Unknown", Reason: "NodeStatusUnknown"})}, wantGot: "Ready Unknown (NodeStatusUnknown)"},
		{name: "no condition", e: e, objs: []runtime.Object{node()}, wantGot: "no Ready condition"},
		{name: "no node", e: e, wantGot: `404 NotFound: nodes "node-4" not found`},
	})
}

func TestParseCanI(t *testing.T) {
	checkParse(t, parseCanI, []parseCase[Expectation]{
		{name: "defaults", key: "canI", src: "{user: student, verb: get, resource: pods}",
			want: &CanIExpectation{User: "student", Verb: "get", Resource: "pods", Namespace: "default", Allowed: true}},
		{name: "cluster scope, denied", key: "canI", src: "{user: system:node:node-1, verb: delete, resource: nodes, namespace: '', allowed: false}",
			want: &CanIExpectation{User: "system:node:node-1", Verb: "delete", Resource: "nodes", Allowed: false}},
		{name: "one object", key: "canI", src: "{user: student, verb: bind, resource: clusterroles.rbac.authorization.k8s.io, name: edit, namespace: team-a}",
			want: &CanIExpectation{User: "student", Verb: "bind", Resource: "clusterroles.rbac.authorization.k8s.io", Name: "edit", Namespace: "team-a", Allowed: true}},
		{name: "no user", key: "canI", src: "{verb: get, resource: pods}", wantErr: `1:1: canI: missing field "user"`},
		{name: "no resource", key: "canI", src: "{user: admin, verb: get}", wantErr: `1:1: canI: missing field "resource"`},
	})
}

// TestCanIProbe: the review asks what kubectl auth can-i asks (group and
// subresource split off the resource), as the user, and its answer is
// compared.
func TestCanIProbe(t *testing.T) {
	for _, tc := range []struct {
		name      string
		e         *CanIExpectation
		allowed   bool
		wantAttrs authorizationv1.ResourceAttributes
		wantOK    bool
		wantGot   string
	}{
		{"allowed", &CanIExpectation{User: "student", Verb: "get", Resource: "pods", Namespace: "default", Allowed: true}, true,
			authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "pods"}, true, ""},
		{"denied, wanted allowed", &CanIExpectation{User: "student", Verb: "update", Resource: "deployments.apps/scale", Allowed: true}, false,
			authorizationv1.ResourceAttributes{Verb: "update", Group: "apps", Resource: "deployments", Subresource: "scale"}, false, "not allowed (no RBAC rule allowed it)"},
		{"denied, wanted denied", &CanIExpectation{User: "student", Verb: "delete", Resource: "pods/status", Namespace: "default"}, false,
			authorizationv1.ResourceAttributes{Namespace: "default", Verb: "delete", Resource: "pods", Subresource: "status"}, true, ""},
		{"one object", &CanIExpectation{User: "student", Verb: "bind", Resource: "clusterroles.rbac.authorization.k8s.io", Name: "edit", Namespace: "team-a", Allowed: true}, true,
			authorizationv1.ResourceAttributes{Namespace: "team-a", Verb: "bind", Group: "rbac.authorization.k8s.io", Resource: "clusterroles", Name: "edit"}, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := kubefake.NewClientset()
			var asked *authorizationv1.ResourceAttributes
			cs.PrependReactor("create", "selfsubjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
				review := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
				asked = review.Spec.ResourceAttributes
				review.Status.Allowed = tc.allowed
				if !tc.allowed {
					review.Status.Reason = "no RBAC rule allowed it"
				}
				return true, review, nil
			})
			p := probePlayer(t)
			p.reviewClients[tc.e.User] = cs
			got, ok, _ := tc.e.probe(t.Context(), p)
			if ok != tc.wantOK || got != tc.wantGot {
				t.Errorf("probe = %q, %v; want %q, %v", got, ok, tc.wantGot, tc.wantOK)
			}
			if asked == nil || *asked != tc.wantAttrs {
				t.Errorf("asked about %+v, want %+v", asked, tc.wantAttrs)
			}
		})
	}
}

func TestExpectationStrings(t *testing.T) {
	for _, tc := range []struct {
		e          Expectation
		kind, want string
	}{
		{&PodStageExpectation{Pod: "web", Namespace: "team", Stage: 4}, "podStage", "podStage 4 (scheduled) for team/web"},
		{&PodPhaseExpectation{Pod: "web", Namespace: "default", Phase: "Running"}, "podPhase", "podPhase Running for web"},
		{&ContainerStateExpectation{Pod: "web", Namespace: "default", Container: "app", Reason: "Error", RestartsAtLeast: 2}, "containerState", "containerState Error with at least 2 restarts for web container app"},
		{&EventExpectation{Object: "web", Namespace: "default", Reason: "BackOff", Message: "Back-off"}, "event", `event BackOff for web with message containing "Back-off"`},
		{&StatusExpectation{Code: 201}, "status", "status 201"},
		{&MessageExpectation{Contains: "exists"}, "message", `message containing "exists"`},
		{&WatchEventsExpectation{Types: []string{"ADDED", "DELETED"}}, "watchEvents", "watchEvents [ADDED DELETED]"},
		{&AbsentExpectation{Object: ObjectSpec{Kind: "Node", Name: "n1"}}, "absent", "Node n1 absent"},
		{&NodeReadyExpectation{Node: "n1"}, "nodeReady", "nodeReady n1"},
		{&CanIExpectation{User: "student", Verb: "get", Resource: "pods", Namespace: "default"}, "canI", `canI get pods as student in "default": no`},
	} {
		if tc.e.Kind() != tc.kind || tc.e.String() != tc.want {
			t.Errorf("%T: Kind %q String %q, want %q %q", tc.e, tc.e.Kind(), tc.e.String(), tc.kind, tc.want)
		}
	}
}
