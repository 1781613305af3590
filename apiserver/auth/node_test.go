package auth

import (
	"context"
	"testing"
)

func TestNodeAuthorizer(t *testing.T) {
	node := NewNodeAuthorizer()
	kubelet := user("system:node:node-a", GroupNodes)
	lease := func(verb, ns, name string) Attributes {
		return resAttrs(kubelet, verb, "coordination.k8s.io", "leases", "", ns, name)
	}
	withSelector := func(a Attributes, fs string) Attributes { a.FieldSelector = fs; return a }

	tests := []struct {
		name       string
		attrs      Attributes
		want       Decision
		wantReason string
		wantRule   string
	}{
		// Its own Node.
		{name: "get own node", attrs: resAttrs(kubelet, "get", "", "nodes", "", "", "node-a"), want: DecisionAllow,
			wantRule: `verbs=[create get list watch] apiGroups=[""] resources=[nodes]`},
		{name: "watch own node by field selector", attrs: withSelector(resAttrs(kubelet, "watch", "", "nodes", "", "", "node-a"), "metadata.name=node-a"), want: DecisionAllow},
		{name: "create node", attrs: resAttrs(kubelet, "create", "", "nodes", "", "", ""), want: DecisionAllow},
		{name: "patch node", attrs: resAttrs(kubelet, "patch", "", "nodes", "", "", "node-a"), want: DecisionAllow,
			wantRule: `verbs=[patch update] apiGroups=[""] resources=[nodes]`},
		{name: "patch node status", attrs: resAttrs(kubelet, "patch", "", "nodes", "status", "", "node-a"), want: DecisionAllow,
			wantRule: `verbs=[patch update] apiGroups=[""] resources=[nodes/status]`},
		{name: "update node status", attrs: resAttrs(kubelet, "update", "", "nodes", "status", "", "node-a"), want: DecisionAllow},
		{name: "get another node", attrs: resAttrs(kubelet, "get", "", "nodes", "", "", "node-b"), want: DecisionNoOpinion,
			wantReason: "node 'node-a' cannot read 'node-b', only its own Node object"},
		{name: "list all nodes", attrs: resAttrs(kubelet, "list", "", "nodes", "", "", ""), want: DecisionNoOpinion,
			wantReason: "node 'node-a' cannot read all nodes, only its own Node object"},
		{name: "delete node", attrs: resAttrs(kubelet, "delete", "", "nodes", "", "", "node-a"), want: DecisionNoOpinion},
		{name: "get node status", attrs: resAttrs(kubelet, "get", "", "nodes", "status", "", "node-a"), want: DecisionNoOpinion},

		// Pods.
		{name: "update pod status", attrs: resAttrs(kubelet, "update", "", "pods", "status", "default", "web"), want: DecisionAllow,
			wantRule: `verbs=[patch update] apiGroups=[""] resources=[pods/status]`},
		{name: "patch pod status", attrs: resAttrs(kubelet, "patch", "", "pods", "status", "default", "web"), want: DecisionAllow},
		{name: "get a pod", attrs: resAttrs(kubelet, "get", "", "pods", "", "default", "web"), want: DecisionAllow,
			wantRule: `verbs=[get list watch] apiGroups=[""] resources=[pods]`},
		{name: "watch own pods", attrs: withSelector(resAttrs(kubelet, "watch", "", "pods", "", "", ""), "spec.nodeName=node-a"), want: DecisionAllow},
		{name: "list own pods among other terms", attrs: withSelector(resAttrs(kubelet, "list", "", "pods", "", "", ""), "status.phase!=Failed,spec.nodeName=node-a"), want: DecisionAllow},
		{name: "watch another node's pods", attrs: withSelector(resAttrs(kubelet, "watch", "", "pods", "", "", ""), "spec.nodeName=node-b"), want: DecisionNoOpinion,
			wantReason: "can only list/watch pods with spec.nodeName field selector"},
		{name: "list all pods", attrs: resAttrs(kubelet, "list", "", "pods", "", "", ""), want: DecisionNoOpinion,
			wantReason: "can only list/watch pods with spec.nodeName field selector"},
		{name: "create mirror pod", attrs: resAttrs(kubelet, "create", "", "pods", "", "kube-system", ""), want: DecisionAllow},
		{name: "delete pod", attrs: resAttrs(kubelet, "delete", "", "pods", "", "default", "web"), want: DecisionAllow},
		{name: "update pod", attrs: resAttrs(kubelet, "update", "", "pods", "", "default", "web"), want: DecisionNoOpinion},
		{name: "bind pod", attrs: resAttrs(kubelet, "create", "", "pods", "binding", "default", "web"), want: DecisionNoOpinion},
		{name: "legacy bindings", attrs: resAttrs(kubelet, "create", "", "bindings", "", "default", ""), want: DecisionNoOpinion},

		// Events.
		{name: "create event", attrs: resAttrs(kubelet, "create", "", "events", "", "default", ""), want: DecisionAllow,
			wantRule: `verbs=[create patch update] apiGroups=["" "events.k8s.io"] resources=[events]`},
		{name: "patch event", attrs: resAttrs(kubelet, "patch", "", "events", "", "default", "e"), want: DecisionAllow},
		{name: "list events", attrs: resAttrs(kubelet, "list", "", "events", "", "default", ""), want: DecisionNoOpinion},

		// Its lease.
		{name: "update own lease", attrs: lease("update", "kube-node-lease", "node-a"), want: DecisionAllow,
			wantRule: `verbs=[create delete get patch update] apiGroups=["coordination.k8s.io"] resources=[leases]`},
		{name: "get own lease", attrs: lease("get", "kube-node-lease", "node-a"), want: DecisionAllow},
		{name: "create lease", attrs: lease("create", "kube-node-lease", ""), want: DecisionAllow},
		{name: "update another lease", attrs: lease("update", "kube-node-lease", "node-b"), want: DecisionNoOpinion,
			wantReason: "can only access node lease with the same name as the requesting node"},
		{name: "lease elsewhere", attrs: lease("update", "kube-system", "node-a"), want: DecisionNoOpinion,
			wantReason: `can only access leases in the "kube-node-lease" system namespace`},
		{name: "list leases", attrs: lease("list", "kube-node-lease", ""), want: DecisionNoOpinion,
			wantReason: "can only get, create, update, patch, or delete a node lease"},

		// Not a kubelet's business.
		{name: "create roles", attrs: resAttrs(kubelet, "create", "rbac.authorization.k8s.io", "roles", "", "default", ""), want: DecisionNoOpinion},
		{name: "delete namespaces", attrs: resAttrs(kubelet, "delete", "", "namespaces", "", "default", "default"), want: DecisionNoOpinion},
		{name: "get secrets", attrs: resAttrs(kubelet, "get", "", "secrets", "", "default", "s"), want: DecisionNoOpinion},
		{name: "self subject access review", attrs: resAttrs(kubelet, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "", "", ""), want: DecisionNoOpinion},
		{name: "subject access review", attrs: resAttrs(kubelet, "create", "authorization.k8s.io", "subjectaccessreviews", "", "", ""), want: DecisionAllow},
		{name: "non-resource path", attrs: pathAttrs(kubelet, "get", "/healthz"), want: DecisionNoOpinion},

		// Not a kubelet.
		{name: "node name without the group", attrs: resAttrs(user("system:node:node-a"), "get", "", "nodes", "", "", "node-a"), want: DecisionNoOpinion},
		{name: "scheduler", attrs: resAttrs(user(SchedulerUser), "get", "", "nodes", "", "", "node-a"), want: DecisionNoOpinion},
		{name: "nil user", attrs: resAttrs(nil, "get", "", "nodes", "", "", "node-a"), want: DecisionNoOpinion},
		{name: "empty node name", attrs: resAttrs(user("system:node:", GroupNodes), "get", "", "nodes", "", "", ""), want: DecisionNoOpinion,
			wantReason: `unknown node for user "system:node:"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := node.Authorize(context.Background(), tt.attrs)
			if err != nil {
				t.Fatalf("err = %v, want none", err)
			}
			if got.Decision != tt.want {
				t.Fatalf("decision = %v (reason %q), want %v", got.Decision, got.Reason, tt.want)
			}
			if got.Authorizer != AuthorizerNode {
				t.Errorf("authorizer = %q, want %q", got.Authorizer, AuthorizerNode)
			}
			if got.Reason != tt.wantReason {
				t.Errorf("reason = %q, want %q", got.Reason, tt.wantReason)
			}
			if tt.wantRule != "" && got.Rule != tt.wantRule {
				t.Errorf("rule:\ngot  %s\nwant %s", got.Rule, tt.wantRule)
			}
			if (got.Rule != "") != (tt.want == DecisionAllow) {
				t.Errorf("rule = %q; want a rule exactly when allowed", got.Rule)
			}
		})
	}
}
