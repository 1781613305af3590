package kubelet

import (
	"context"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestLeaseRenewalKeepsItsCopyOnOverload: a renewal answered 429 (an
// overloaded API server) is retried with the Lease the kubelet has, as
// upstream's lease controller does, without a GET; after
// maxLeaseUpdateFailures failures in a row, and after a 409 Conflict, the
// next renewal reads the Lease again.
func TestLeaseRenewalKeepsItsCopyOnOverload(t *testing.T) {
	ctx := context.Background()
	client := fake.NewClientset()
	k, err := New(NewConfig(DefaultNodeSpec("node-1"), client))
	if err != nil {
		t.Fatal(err)
	}
	if err := k.renewLease(ctx); err != nil { // creates it
		t.Fatalf("first renewal: %v", err)
	}
	var answer error // what the next updates get; nil lets them through
	client.PrependReactor("update", "leases", func(k8stesting.Action) (bool, runtime.Object, error) {
		return answer != nil, nil, answer
	})
	gets := func() int {
		n := 0
		for _, a := range client.Actions() {
			if a.GetVerb() == "get" && a.GetResource().Resource == "leases" {
				n++
			}
		}
		return n
	}
	renew := func(want error, wantGets int, what string) {
		t.Helper()
		if err := k.renewLease(ctx); (err == nil) != (want == nil) {
			t.Fatalf("%s: renewal error %v, want %v", what, err, want)
		}
		if got := gets(); got != wantGets {
			t.Errorf("%s: %d GETs of the Lease so far, want %d", what, got, wantGets)
		}
	}
	gets0 := gets()
	answer = apierrors.NewTooManyRequests("please try again later", 1)
	for i := 1; i < maxLeaseUpdateFailures; i++ {
		renew(answer, gets0, "a renewal after 429s")
	}
	renew(answer, gets0, "the last renewal before reading the Lease again")
	answer = nil
	renew(nil, gets0+1, "the renewal after as many 429s in a row")
	renew(nil, gets0+1, "the next renewal")

	answer = apierrors.NewConflict(schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}, "node-1", nil)
	renew(answer, gets0+1, "a renewal answered 409")
	answer = nil
	renew(nil, gets0+2, "the renewal after a 409")
}
