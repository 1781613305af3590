package apiserver_test

import (
	"slices"
	"testing"

	upstream "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle"
	"k8s.io/apiserver/pkg/admission/plugin/resourcequota"
	"k8s.io/kubernetes/plugin/pkg/admission/defaulttolerationseconds"
	"k8s.io/kubernetes/plugin/pkg/admission/limitranger"
	"k8s.io/kubernetes/plugin/pkg/admission/noderestriction"
	"k8s.io/kubernetes/plugin/pkg/admission/priority"
	"k8s.io/kubernetes/plugin/pkg/admission/serviceaccount"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageclass/setdefault"
	"k8s.io/kubernetes/plugin/pkg/admission/storage/storageobjectinuseprotection"

	"github.com/kubesim/kubesim/apiserver"
	"github.com/kubesim/kubesim/apiserver/admission"
)

// upstreamOrder is the order of kube-apiserver's AllOrderedPlugins
// (k8s.io/kubernetes pkg/kubeapiserver/options/plugins.go) of the
// plugins kubesim runs.
var upstreamOrder = []string{
	"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "NodeRestriction",
	"Priority", "DefaultTolerationSeconds", "DefaultStorageClass",
	"StorageObjectInUseProtection", "ResourceQuota",
}

// capture is an admission.PluginInitializer that keeps the plugin it is
// given: InitPlugin hands it the plugin before checking that the plugin
// has what it needs (listers, clients), which these tests do not give.
type capture struct{ plugin upstream.Interface }

func (c *capture) Initialize(p upstream.Interface) { c.plugin = p }

// upstreamPlugins builds kube-apiserver's own plugins of those names,
// through their packages' Register, as its admission options do.
func upstreamPlugins(t *testing.T) map[string]upstream.Interface {
	t.Helper()
	ps := upstream.NewPlugins()
	for _, register := range []func(*upstream.Plugins){
		lifecycle.Register, limitranger.Register, serviceaccount.Register,
		noderestriction.Register, priority.Register, defaulttolerationseconds.Register,
		setdefault.Register, storageobjectinuseprotection.Register, resourcequota.Register,
	} {
		register(ps)
	}
	out := map[string]upstream.Interface{}
	for _, name := range upstreamOrder {
		c := &capture{}
		_, _ = ps.InitPlugin(name, nil, c) // uninitialized: an error is expected
		if c.plugin == nil {
			t.Fatalf("upstream plugin %s was not built", name)
		}
		out[name] = c.plugin
	}
	return out
}

// TestAdmissionPhasesAsUpstream checks the server's chain against
// kube-apiserver's own plugins: for each operation, the mutating phase
// runs, in upstream's order, exactly the plugins whose upstream type
// implements admission.MutationInterface and handles the operation, and
// the validating phase those that implement
// admission.ValidationInterface. (NamespaceLifecycle and NodeRestriction
// are mutating only; Priority is in both phases.)
func TestAdmissionPhasesAsUpstream(t *testing.T) {
	ts := startServer(t, withServiceAccountAdmission)
	chain := apiserver.AdmissionChain(ts.srv)
	plugins := upstreamPlugins(t)
	for _, op := range []admission.Operation{admission.Create, admission.Update, admission.Delete} {
		var wantMutating, wantValidating []string
		for _, name := range upstreamOrder {
			p := plugins[name]
			if !p.Handles(upstream.Operation(op)) {
				continue
			}
			if _, ok := p.(upstream.MutationInterface); ok {
				wantMutating = append(wantMutating, name)
			}
			if _, ok := p.(upstream.ValidationInterface); ok {
				wantValidating = append(wantValidating, name)
			}
		}
		var gotMutating, gotValidating []string
		for _, p := range chain.Mutating {
			if p.Handles(op) {
				gotMutating = append(gotMutating, p.Name())
			}
		}
		for _, p := range chain.Validating {
			if p.Handles(op) {
				gotValidating = append(gotValidating, p.Name())
			}
		}
		if !slices.Equal(gotMutating, wantMutating) {
			t.Errorf("%s: mutating phase runs %v, want %v", op, gotMutating, wantMutating)
		}
		if !slices.Equal(gotValidating, wantValidating) {
			t.Errorf("%s: validating phase runs %v, want %v", op, gotValidating, wantValidating)
		}
	}
}
