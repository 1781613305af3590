package admission_test

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/kubesim/kubesim/apiserver/admission"
)

var nodeA = admission.UserInfo{Name: "system:node:node-a", Groups: []string{"system:nodes", "system:authenticated"}}

func boundPod(name, node string) *corev1.Pod {
	p := simplePod(name)
	p.Spec.NodeName = node
	return p
}

func mirrorPod(node string, mutate func(p *corev1.Pod)) *corev1.Pod {
	p := boundPod("static-web-"+node, node)
	p.Annotations = map[string]string{corev1.MirrorPodAnnotationKey: "hash"}
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: "uid-1", Controller: ptr.To(true)}}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func node(name string, mutate func(n *corev1.Node)) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{corev1.LabelHostname: name}}}
	if mutate != nil {
		mutate(n)
	}
	return n
}

func TestNodeRestriction(t *testing.T) {
	leasesGVR := coordinationv1.SchemeGroupVersion.WithResource("leases")
	lease := func(name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease}}
	}
	attrs := func(op admission.Operation, gvr string, sub, ns, name string, obj, old runtime.Object) *admission.Attributes {
		a := &admission.Attributes{Operation: op, Subresource: sub, Namespace: ns, Name: name, Object: obj, OldObject: old, User: nodeA}
		switch gvr {
		case "pods":
			a.Resource, a.Kind = podsGVR, podGVK
		case "nodes":
			a.Resource, a.Kind = nodesGVR, nodeGVK
		case "leases":
			a.Resource, a.Kind = leasesGVR, coordinationv1.SchemeGroupVersion.WithKind("Lease")
		}
		return a
	}
	updated := func(old *corev1.Pod, mutate func(p *corev1.Pod)) *corev1.Pod {
		p := old.DeepCopy()
		mutate(p)
		return p
	}
	tests := []struct {
		name        string
		a           *admission.Attributes
		wantHandled bool
		want        wantErr
	}{
		// Pod status.
		{"status of own pod", attrs(admission.Update, "pods", "status", "default", "p",
			updated(boundPod("p", "node-a"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodRunning }), boundPod("p", "node-a")), true, wantErr{}},
		{"status of another node's pod", attrs(admission.Update, "pods", "status", "default", "p",
			boundPod("p", "node-b"), boundPod("p", "node-b")), true,
			forbidden(`pods "p" is forbidden: node "node-a" can only update pod status for pods with spec.nodeName set to itself`)},
		{"status of an unbound pod", attrs(admission.Update, "pods", "status", "default", "p",
			simplePod("p"), simplePod("p")), true,
			forbidden(`pods "p" is forbidden: node "node-a" can only update pod status for pods with spec.nodeName set to itself`)},
		{"labels through status", attrs(admission.Update, "pods", "status", "default", "p",
			updated(boundPod("p", "node-a"), func(p *corev1.Pod) { p.Labels = map[string]string{"hacked": "yes"} }), boundPod("p", "node-a")), true,
			forbidden(`pods "p" is forbidden: node "node-a" cannot update labels through pod status`)},
		// Pods.
		{"delete own pod", attrs(admission.Delete, "pods", "", "default", "p", nil, boundPod("p", "node-a")), true, wantErr{}},
		{"delete another node's pod", attrs(admission.Delete, "pods", "", "default", "p", nil, boundPod("p", "node-b")), true,
			forbidden(`pods "p" is forbidden: node "node-a" can only delete pods with spec.nodeName set to itself`)},
		{"delete a missing pod", attrs(admission.Delete, "pods", "", "default", "p", nil, nil), true,
			wantErr{404, metav1.StatusReasonNotFound, `pods "p" not found`}},
		{"create an ordinary pod", attrs(admission.Create, "pods", "", "default", "p", boundPod("p", "node-a"), nil), true,
			forbidden(`pods "p" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "node-a" can only create mirror pods`)},
		{"create own mirror pod", attrs(admission.Create, "pods", "", "default", "static-web-node-a", mirrorPod("node-a", nil), nil), true, wantErr{}},
		{"mirror pod for another node", attrs(admission.Create, "pods", "", "default", "static-web-node-b", mirrorPod("node-b", nil), nil), true,
			forbidden(`pods "static-web-node-b" is forbidden: node "node-a" can only create pods with spec.nodeName set to itself`)},
		{"mirror pod without owner", attrs(admission.Create, "pods", "", "default", "static-web-node-a",
			mirrorPod("node-a", func(p *corev1.Pod) { p.OwnerReferences = nil }), nil), true,
			forbidden(`pods "static-web-node-a" is forbidden: node "node-a" can only create pods with an owner reference set to itself`)},
		{"mirror pod with a non-controller owner", attrs(admission.Create, "pods", "", "default", "static-web-node-a",
			mirrorPod("node-a", func(p *corev1.Pod) { p.OwnerReferences[0].Controller = nil }), nil), true,
			forbidden(`pods "static-web-node-a" is forbidden: node "node-a" can only create pods with a controller owner reference set to itself`)},
		{"update a pod", attrs(admission.Update, "pods", "", "default", "p", boundPod("p", "node-a"), boundPod("p", "node-a")), true,
			forbidden(`pods "p" is forbidden: unexpected operation "UPDATE", node "node-a" can only create and delete mirror pods`)},
		{"binding", attrs(admission.Create, "pods", "binding", "default", "p", &corev1.Binding{}, nil), true,
			forbidden(`pods "p" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`)},
		{"evict own pod", attrs(admission.Create, "pods", "eviction", "default", "p", nil, boundPod("p", "node-a")), true, wantErr{}},
		{"evict another node's pod", attrs(admission.Create, "pods", "eviction", "default", "p", nil, boundPod("p", "node-b")), true,
			forbidden(`pods "p" is forbidden: node node-a can only evict pods with spec.nodeName set to itself`)},
		// Nodes.
		{"register itself", attrs(admission.Create, "nodes", "", "", "node-a", node("node-a", nil), nil), true, wantErr{}},
		{"update own status", attrs(admission.Update, "nodes", "status", "", "node-a",
			node("node-a", func(n *corev1.Node) { n.Status.Phase = corev1.NodeRunning }), node("node-a", nil)), true, wantErr{}},
		{"update another node", attrs(admission.Update, "nodes", "status", "", "node-b", node("node-b", nil), node("node-b", nil)), true,
			forbidden(`nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"`)},
		{"create another node", attrs(admission.Create, "nodes", "", "", "node-b", node("node-b", nil), nil), true,
			forbidden(`nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"`)},
		{"delete another node", attrs(admission.Delete, "nodes", "", "", "node-b", nil, node("node-b", nil)), true,
			forbidden(`nodes "node-b" is forbidden: node "node-a" is not allowed to modify node "node-b"`)},
		{"remove own taint", attrs(admission.Update, "nodes", "", "", "node-a", node("node-a", nil),
			node("node-a", func(n *corev1.Node) {
				n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			})), true,
			forbidden(`nodes "node-a" is forbidden: node "node-a" is not allowed to modify taints`)},
		{"register with a restricted label", attrs(admission.Create, "nodes", "", "", "node-a",
			node("node-a", func(n *corev1.Node) {
				n.Labels["node-restriction.kubernetes.io/pci"] = "true"
				n.Labels["node-role.kubernetes.io/control-plane"] = ""
				n.Labels["kubelet.kubernetes.io/ok"] = "yes"
				n.Labels["example.com/free"] = "yes"
			}), nil), true,
			forbidden(`nodes "node-a" is forbidden: node "node-a" is not allowed to set the following labels: node-restriction.kubernetes.io/pci, node-role.kubernetes.io/control-plane`)},
		{"change a restricted label", attrs(admission.Update, "nodes", "", "", "node-a",
			node("node-a", func(n *corev1.Node) { n.Labels["node-role.kubernetes.io/worker"] = "" }), node("node-a", nil)), true,
			forbidden(`nodes "node-a" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/worker`)},
		{"change a kubelet label", attrs(admission.Update, "nodes", "", "", "node-a",
			node("node-a", func(n *corev1.Node) { n.Labels[corev1.LabelTopologyZone] = "z1" }), node("node-a", nil)), true, wantErr{}},
		// Leases.
		{"own lease", attrs(admission.Update, "leases", "", corev1.NamespaceNodeLease, "node-a", lease("node-a"), lease("node-a")), true, wantErr{}},
		{"create own lease", attrs(admission.Create, "leases", "", corev1.NamespaceNodeLease, "node-a", lease("node-a"), nil), true, wantErr{}},
		{"another node's lease", attrs(admission.Update, "leases", "", corev1.NamespaceNodeLease, "node-b", lease("node-b"), lease("node-b")), true,
			forbidden(`leases.coordination.k8s.io "node-b" is forbidden: can only access node lease with the same name as the requesting node`)},
		{"lease elsewhere", attrs(admission.Create, "leases", "", "default", "node-a", lease("node-a"), nil), true,
			forbidden(`leases.coordination.k8s.io "node-a" is forbidden: can only access leases in the "kube-node-lease" system namespace`)},
		// Not its business.
		{"configmaps", &admission.Attributes{Operation: admission.Create, User: nodeA, Namespace: "default", Name: "c",
			Resource: corev1.SchemeGroupVersion.WithResource("configmaps")}, false, wantErr{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields, handled, err := admission.NewNodeRestriction().Admit(context.Background(), tt.a)
			checkErr(t, err, tt.want)
			if fields != nil {
				t.Errorf("fields = %q, want none: it changes nothing", fields)
			}
			if handled != tt.wantHandled {
				t.Errorf("handled = %v, want %v", handled, tt.wantHandled)
			}
		})
	}
}

func TestNodeRestrictionOnlyNodes(t *testing.T) {
	other := boundPod("p", "node-b")
	for _, u := range []admission.UserInfo{
		{Name: "kubernetes-admin", Groups: []string{"system:masters"}},
		{Name: "system:node:node-a"},                       // not in system:nodes
		{Name: "node-a", Groups: []string{"system:nodes"}}, // no system:node: prefix
		{Name: "system:kube-scheduler", Groups: []string{"system:authenticated"}},
	} {
		a := podAttrs(admission.Delete, "default", other)
		a.OldObject, a.User = other, u
		fields, handled, err := admission.NewNodeRestriction().Admit(context.Background(), a)
		if fields != nil || handled || err != nil {
			t.Errorf("user %+v: got %q %v %v, want skipped", u, fields, handled, err)
		}
	}
	a := podAttrs(admission.Delete, "default", other)
	a.User = admission.UserInfo{Name: "system:node:", Groups: []string{"system:nodes"}}
	_, _, err := admission.NewNodeRestriction().Admit(context.Background(), a)
	checkErr(t, err, forbidden(`pods "p" is forbidden: could not determine node from user "system:node:"`))
}

func TestNodeIdentity(t *testing.T) {
	name, ok := admission.NodeIdentity(nodeA)
	if name != "node-a" || !ok {
		t.Errorf("NodeIdentity = %q %v, want node-a true", name, ok)
	}
}
