package apiserver

import (
	"fmt"
	"reflect"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"

	"github.com/kubesim/kubesim/apiserver/registry"
)

// kube-apiserver decodes a body with the kind the data names, in every
// version its scheme knows, then converts it to the endpoint's internal
// type: a kind it does not know fails the decode, a kind of another
// internal type fails the conversion ("converting (v1.Secret) to
// (core.ConfigMap): unknown conversion"), and one of the same internal
// type in another version (apps/v1beta2 Deployment for apps/v1) is read,
// then refused for its version. kubesim's own Scheme knows only the
// versions it serves, so these tables stand in for upstream's schemes.

// upstreamScheme knows every built-in kind in every version, as
// kube-apiserver's legacyscheme does: client-go's scheme registers the
// same k8s.io/api types.
var upstreamScheme = clientgoscheme.Scheme

// ownSchemes are the schemes of the servers that decode with a scheme of
// their own, which knows only their group (apiextensions-apiserver's,
// kube-aggregator's): a Secret posted there is of no kind they know.
var ownSchemes = map[string]*runtime.Scheme{
	apiextensionsv1.GroupName:   newScheme(apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme),
	apiregistrationv1.GroupName: newScheme(apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme),
}

func newScheme(adds ...func(*runtime.Scheme) error) *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range adds {
		utilruntime.Must(add(s))
	}
	return s
}

// movedKinds are the kinds upstream reads in one group into the internal
// type of another (extensions/v1beta1 Deployment is an apps.Deployment).
var movedKinds = map[schema.GroupKind]string{
	{Group: "extensions", Kind: "Deployment"}:    "apps",
	{Group: "extensions", Kind: "DaemonSet"}:     "apps",
	{Group: "extensions", Kind: "ReplicaSet"}:    "apps",
	{Group: "extensions", Kind: "NetworkPolicy"}: "networking.k8s.io",
	{Group: "extensions", Kind: "Ingress"}:       "networking.k8s.io",
	{Group: "events.k8s.io", Kind: "Event"}:      "",
}

// internalGroup is the group of the internal type upstream reads gk into.
func internalGroup(gk schema.GroupKind) string {
	if g, ok := movedKinds[gk]; ok {
		return g
	}
	return gk.Group
}

// internalPackage is the Go package name of a group's internal types, as
// a conversion error prints them ("core" for the core group, "rbac" for
// rbac.authorization.k8s.io): the group's first label for every group
// kubesim serves.
func internalPackage(group string) string {
	if group == "" {
		return "core"
	}
	first, _, _ := strings.Cut(group, ".")
	return first
}

// kindRefusal is kube-apiserver's answer to a body of kind got on an
// endpoint of kind want (got != want). readable says whether upstream
// decodes such a body at all (the same internal type in another version):
// it then refuses it only after the strict decoding checks, for its
// version; otherwise the conversion or the decode fails first.
func kindRefusal(got, want schema.GroupVersionKind) (refusal error, readable bool) {
	scheme := upstreamScheme
	if own, ok := ownSchemes[want.Group]; ok {
		scheme = own
	}
	if !scheme.Recognizes(got) {
		return decodeError(runtime.NewNotRegisteredErrForKind(registry.Scheme.Name(), got), &got, want, nil), false
	}
	if got.Kind != want.Kind || internalGroup(got.GroupKind()) != internalGroup(want.GroupKind()) {
		src, err := scheme.New(got)
		if err != nil {
			return decodeError(err, &got, want, nil), false
		}
		return decodeError(fmt.Errorf("converting (%s) to (%s.%s): unknown conversion", reflect.TypeOf(src).Elem(), internalPackage(want.Group), want.Kind), &got, want, nil), false
	}
	return apiVersionMismatch(got, want), true
}

func apiVersionMismatch(got, want schema.GroupVersionKind) error {
	return apierrors.NewBadRequest(fmt.Sprintf("the API version in the data (%s) does not match the expected API version (%s)", got.GroupVersion(), want.GroupVersion()))
}
