package scenarios

import (
	"context"
	"strings"
	"testing"
)

func TestParseObjects(t *testing.T) {
	three, yes := int64(3), true
	checkParse(t, parseObjects, []parseCase[Expectation]{
		{name: "pods of a selector", key: "objects", src: "{kind: Pod, selector: app=web, count: 3, terminating: true, owner: ReplicaSet, blockOwnerDeletion: true}",
			want: &ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=web", Count: &three, Terminating: &yes, Owner: "ReplicaSet", BlockOwnerDeletion: &yes}},
		{name: "one named", key: "objects", src: "{kind: Deployment, name: web, namespace: team, finalizer: foregroundDeletion}",
			want: &ObjectsExpectation{ObjectKind: "Deployment", Namespace: "team", Name: "web", Finalizer: "foregroundDeletion"}},
		{name: "cluster-scoped", key: "objects", src: "{kind: Namespace, name: team, terminating: true}",
			want: &ObjectsExpectation{ObjectKind: "Namespace", Name: "team", Terminating: &yes}},
		{name: "no kind", key: "objects", src: "{selector: app=web}", wantErr: `1:1: objects: missing field "kind"`},
		{name: "bad selector", key: "objects", src: "{kind: Pod, selector: 'app in web'}",
			wantErr: `1:23: objects.selector: unable to parse requirement: found 'web' expected: '('`},
		{name: "negative count", key: "objects", src: "{kind: Pod, count: -1}", wantErr: `1:20: objects.count: -1 is negative`},
		{name: "unknown owner", key: "objects", src: "{kind: Pod, owner: Widget}", wantErr: `1:20: objects.owner: unknown kind "Widget" (a kind, or none)`},
		{name: "blocking without owner", key: "objects", src: "{kind: Pod,\n  blockOwnerDeletion: true}",
			wantErr: `2:3: objects.blockOwnerDeletion: needs an owner kind`},
		{name: "namespace of a cluster kind", key: "objects", src: "{kind: Node, namespace: team}",
			wantErr: `1:14: objects.namespace: Node is not namespaced`},
	})
}

// The pods of a ReplicaSet being deleted in the foreground; one of them
// already released.
const (
	ownedPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-a","namespace":"default","labels":{"app":"web"},
		"deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["example.com/x"],
		"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":"u1","controller":true,"blockOwnerDeletion":true}]}}`
	orphanPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-b","namespace":"default","labels":{"app":"web"}}}`
)

func TestObjectsProbe(t *testing.T) {
	one, two, yes, no := int64(1), int64(2), true, false
	for _, tc := range []struct {
		name    string
		e       ObjectsExpectation
		wantOK  bool
		wantGot string
	}{
		{name: "count", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=web", Count: &two}, wantOK: true},
		{name: "count wrong", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=web", Count: &one},
			wantGot: "2: web-a (terminating, finalizers [example.com/x], owner ReplicaSet/web-1 blocking), web-b (no owner)"},
		{name: "every one owned", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=web", Owner: "ReplicaSet"}},
		{name: "named and owned, blocking", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Name: "web-a", Owner: "ReplicaSet", BlockOwnerDeletion: &yes, Terminating: &yes, Finalizer: "example.com/x"}, wantOK: true},
		{name: "not blocking", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Name: "web-a", Owner: "ReplicaSet", BlockOwnerDeletion: &no}},
		{name: "orphan", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Name: "web-b", Owner: ownerNone, Terminating: &no}, wantOK: true},
		{name: "none match, no count", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=db"}, wantGot: "none"},
		{name: "none match, count 0", e: ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=db", Count: new(int64)}, wantOK: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, fc := fakePlayer(t, mustUnstructured(t, ownedPod), mustUnstructured(t, orphanPod))
			p.dynamicClients[expectUser] = fc
			got, ok, _ := tc.e.probe(context.Background(), p)
			if ok != tc.wantOK || (tc.wantGot != "" && got != tc.wantGot) {
				t.Errorf("probe = %q, %v; want ok %v (got %q)", got, ok, tc.wantOK, tc.wantGot)
			}
		})
	}
	if got := (&ObjectsExpectation{ObjectKind: "Pod", Namespace: "default", Selector: "app=web", Count: &two, Owner: ownerNone}).String(); !strings.Contains(got, "Pod * app=web: 2 of them, owner none") {
		t.Errorf("String() = %q", got)
	}
}
