package registry_test

import (
	"context"
	"testing"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// upstreamUnconditional is AllowUnconditionalUpdate of upstream's strategy
// of each kind kubesim stores (kubernetes v1.37.2 pkg/registry/*/*/strategy.go,
// apiextensions-apiserver's and kube-aggregator's); their status
// strategies embed it.
var upstreamUnconditional = map[string]bool{
	"configmaps": true, "endpoints": true, "events": true, "namespaces": true, "nodes": true,
	"podtemplates": true, "pods": true, "secrets": true, "serviceaccounts": true, "services": true,
	"controllerrevisions.apps": true, "deployments.apps": true, "replicasets.apps": true,
	"statefulsets.apps": true, "daemonsets.apps": true, "persistentvolumeclaims": true, "persistentvolumes": true, "storageclasses.storage.k8s.io": true, "replicationcontrollers": true,
	"limitranges": true, "resourcequotas": true,
	"leases.coordination.k8s.io":                    false,
	"endpointslices.discovery.k8s.io":               true,
	"clusterrolebindings.rbac.authorization.k8s.io": true, "clusterroles.rbac.authorization.k8s.io": true,
	"rolebindings.rbac.authorization.k8s.io": true, "roles.rbac.authorization.k8s.io": true,
	"customresourcedefinitions.apiextensions.k8s.io": false,
	"apiservices.apiregistration.k8s.io":             false,
	"horizontalpodautoscalers.autoscaling":           true,
	"cronjobs.batch":                                 true, "jobs.batch": true,
	"poddisruptionbudgets.policy":                    false,
	"certificatesigningrequests.certificates.k8s.io": true, "events.events.k8s.io": true,
	"ingressclasses.networking.k8s.io": true, "ingresses.networking.k8s.io": true, "networkpolicies.networking.k8s.io": true,
	// componentstatuses are read-only: no update to allow.
	"componentstatuses":                 false,
	"priorityclasses.scheduling.k8s.io": true,
}

func TestAllowUnconditionalUpdateAsUpstream(t *testing.T) {
	all := []*registry.Resource{registry.CustomResourceDefinitions, registry.APIServices}
	for _, g := range registry.Groups {
		all = append(all, g.Resources...)
	}
	for _, res := range all {
		gr := res.GroupResource().String()
		want, ok := upstreamUnconditional[gr]
		if !ok {
			t.Errorf("%s: not in the table; look up its upstream strategy's AllowUnconditionalUpdate", gr)
			continue
		}
		if got := res.Strategy.AllowUnconditionalUpdate; got != want {
			t.Errorf("%s: AllowUnconditionalUpdate = %v, upstream's is %v", gr, got, want)
		}
		if res.Status != nil && res.Status.AllowUnconditionalUpdate != want {
			t.Errorf("%s/status: AllowUnconditionalUpdate = %v, upstream's is %v", gr, res.Status.AllowUnconditionalUpdate, want)
		}
	}
}

// TestLeaseUpdateNeedsResourceVersion checks the answer to a lease PUT
// without a resourceVersion against kube-apiserver v1.37.2's.
func TestLeaseUpdateNeedsResourceVersion(t *testing.T) {
	ctx := context.Background()
	r := newRegistry(t)
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l1"}}
	if _, err := r.Leases.Create(ctx, "default", l, nil, registry.Options{}); err != nil {
		t.Fatal(err)
	}
	holder := "you"
	put := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "l1"}, Spec: coordinationv1.LeaseSpec{HolderIdentity: &holder}}
	_, _, err := r.Leases.Update(ctx, "default", "l1", replaceWith(put), nil, nil, registry.Options{})
	se, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("err = %v, want a 422", err)
	}
	st := se.Status()
	const msg = `leases.coordination.k8s.io "l1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`
	if st.Code != 422 || st.Message != msg || st.Details.Kind != "leases" || st.Details.Group != "coordination.k8s.io" {
		t.Errorf("got %d %q %+v, want 422 %q, details kind leases, group coordination.k8s.io", st.Code, st.Message, st.Details, msg)
	}
}
