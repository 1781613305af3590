package aggregator

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
)

// Priority orders a group-version in discovery: groups by Group (highest
// first), the versions of a group by Version (highest first), as
// APIService.spec.groupPriorityMinimum and versionPriority do.
type Priority struct {
	Group   int32
	Version int32
}

// builtinPriorities are the priorities kube-apiserver gives the built-in
// group-versions kubesim serves (the values of upstream's
// DefaultGenericAPIServicePriorities). A group-version missing here gets
// no local APIService, as upstream skips those it has no priority for.
var builtinPriorities = map[schema.GroupVersion]Priority{
	{Group: "", Version: "v1"}:                          {Group: 18000, Version: 1},
	{Group: "events.k8s.io", Version: "v1"}:             {Group: 17750, Version: 15},
	{Group: "apps", Version: "v1"}:                      {Group: 17800, Version: 15},
	{Group: "authentication.k8s.io", Version: "v1"}:     {Group: 17700, Version: 15},
	{Group: "authorization.k8s.io", Version: "v1"}:      {Group: 17600, Version: 15},
	{Group: "autoscaling", Version: "v1"}:               {Group: 17500, Version: 15},
	{Group: "autoscaling", Version: "v2"}:               {Group: 17500, Version: 30},
	{Group: "batch", Version: "v1"}:                     {Group: 17400, Version: 15},
	{Group: "certificates.k8s.io", Version: "v1"}:       {Group: 17300, Version: 15},
	{Group: "networking.k8s.io", Version: "v1"}:         {Group: 17200, Version: 15},
	{Group: "policy", Version: "v1"}:                    {Group: 17100, Version: 15},
	{Group: "rbac.authorization.k8s.io", Version: "v1"}: {Group: 17000, Version: 15},
	{Group: "storage.k8s.io", Version: "v1"}:            {Group: 16800, Version: 15},
	{Group: "apiextensions.k8s.io", Version: "v1"}:      {Group: 16700, Version: 15},
	{Group: "scheduling.k8s.io", Version: "v1"}:         {Group: 16600, Version: 15},
	{Group: "coordination.k8s.io", Version: "v1"}:       {Group: 16500, Version: 15},
	{Group: "discovery.k8s.io", Version: "v1"}:          {Group: 16200, Version: 15},
}

// RegistrationPriority is the priority the aggregator gives its own group,
// apiregistration.k8s.io, in the aggregated discovery document: above
// every APIService (their groupPriorityMinimum is at most 20000). The
// group has no APIService of its own.
var RegistrationPriority = Priority{Group: 20001, Version: 0}

// CRDPriority is the priority of the APIService registered for a CRD's
// group-version, as upstream's crdregistration controller sets it: low, so
// that built-in groups win a name clash.
var CRDPriority = Priority{Group: 1000, Version: 100}

// APIServiceName is the name of the APIService of gv: "<version>.<group>"
// ("v1." for the core group).
func APIServiceName(gv schema.GroupVersion) string { return gv.Version + "." + gv.Group }

// newLocal returns a local APIService (no spec.service) for gv.
func newLocal(gv schema.GroupVersion, p Priority) *apiregv1.APIService {
	return &apiregv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: APIServiceName(gv)},
		Spec: apiregv1.APIServiceSpec{
			Group: gv.Group, Version: gv.Version,
			GroupPriorityMinimum: p.Group, VersionPriority: p.Version,
		},
	}
}

// LocalAPIServices returns the local APIServices kube-apiserver registers
// for the paths its delegate serves, as upstream's apiServicesToRegister
// does: /api/v1 is "v1.", each /apis/<group>/<version> is
// "<version>.<group>", and a group-version without a known priority is
// skipped (so that a CRD's group-version, registered separately, never
// gets stuck in the list).
func LocalAPIServices(paths []string) []*apiregv1.APIService {
	var out []*apiregv1.APIService
	for _, p := range paths {
		var gv schema.GroupVersion
		switch tokens := strings.Split(p, "/"); {
		case p == "/api/v1":
			gv = schema.GroupVersion{Version: "v1"}
		case len(tokens) == 4 && tokens[1] == "apis":
			gv = schema.GroupVersion{Group: tokens[2], Version: tokens[3]}
		default:
			continue
		}
		prio, ok := builtinPriorities[gv]
		if !ok {
			continue
		}
		out = append(out, newLocal(gv, prio))
	}
	return out
}

// CRDAPIService returns the local APIService upstream's crdregistration
// controller registers for a group-version a CRD serves.
func CRDAPIService(gv schema.GroupVersion) *apiregv1.APIService { return newLocal(gv, CRDPriority) }
